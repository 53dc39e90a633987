import type { Summarizer } from '../contracts/summarizer.ts';
import { foldedResultOrigin } from '../transcript/folded-result.ts';
import {
  type Entry,
  entryText,
  firstLine,
  inputText,
  outputText,
  squash,
  toolCalls,
} from '../transcript/transcript.ts';
import {
  lineWeight,
  NAMES_PREFIX,
  parseSummary,
  renderSummary,
  type SummaryLine,
  type SummarySection,
} from './summary-document.ts';

// Without the caller's counter, a conservative estimate: dense text (ids, numbers) runs near 3.
const CHARS_PER_TOKEN = 3;

/**
 * The lines an entry Baton wrote stands for, or undefined for any other entry: a digest's
 * calls, an earlier summary's lines (without its heading and its names line: the new summary
 * lists the span's names once); a truncation marker none (the summarize stage puts the names
 * it lists first in the names line, and the summary's heading recalls its range). Read as the
 * user's words, their headings became the weightiest lines of every later summary and carried
 * nothing but a seq range.
 */
function batonLines(entry: Entry): string[] | undefined {
  const kind = entry.meta?.synthetic;
  if (kind === 'digest' || kind === 'marker') return [];
  if (kind !== 'summary') return undefined;
  const body = entryText(entry).split('\n').slice(1);
  if (body.at(-1)?.startsWith(NAMES_PREFIX)) body.pop();
  return parseSummary(body.join('\n')).flatMap((section) => section.lines.map((line) => line.text));
}

/** One line per user request, tool call (with a one-line result) and assistant reply. */
function sectionOf(entries: readonly Entry[]): SummarySection {
  const lines: SummaryLine[] = [];
  // Each call's result by its size and first line; a folded one by the result it stands for.
  const resultsByCall = new Map<string, { chars: number; first: string; isError: boolean }>();
  for (const entry of entries) {
    for (const part of entry.parts) {
      if (part.type !== 'tool-result') continue;
      const output = outputText(part.output);
      const folded = entry.meta?.synthetic === 'folded' ? foldedResultOrigin(output) : undefined;
      resultsByCall.set(part.callId, {
        chars: folded?.chars ?? output.length,
        first: folded?.firstLine ?? firstLine(output, 120),
        isError: part.isError === true,
      });
    }
  }
  const assistantLines: SummaryLine[] = [];
  const add = (text: string) => {
    const line = { text, weight: lineWeight(text) };
    lines.push(line);
    return line;
  };
  for (const entry of entries) {
    const written = batonLines(entry);
    if (written) {
      for (const line of written) add(line);
      continue;
    }
    const text = entry.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    if (entry.role === 'user' && text.trim()) add(`- User: ${squash(text, 400)}`);
    if (entry.role === 'assistant') {
      if (text.trim()) assistantLines.push(add(`- Assistant: ${squash(text, 300)}`));
      for (const call of toolCalls(entry)) {
        const result = resultsByCall.get(call.id);
        const outcome = result
          ? `${result.isError ? 'error' : 'ok'}, ${result.chars} chars: ${squash(result.first, 120)}`
          : 'no result';
        add(`- Called ${call.name}(${squash(inputText(call.input), 120)}) -> ${outcome}`);
      }
    }
  }
  // The latest conclusions matter most for continuing the work.
  for (const line of assistantLines.slice(-3)) line.weight += 3;
  const seqs = entries.map((e) => e.seq);
  return { range: { from: Math.min(...seqs), to: Math.max(...seqs) }, lines };
}

/**
 * The default summarizer: deterministic and extractive, no model needed. The summary is one
 * document of sections, one per compacted span, oldest first. The new span's section keeps
 * every user request, each tool call with a one-line result and the assistant's latest
 * conclusions; older sections are compressed further each time (decisions, ids and dates
 * last) and merged with a neighbour rather than dropped, so every stretch of the conversation
 * stays represented within `maxTokens`. Words of the instruction raise a line's weight.
 *
 * @example
 * createBaton({ model: 'gpt-4o', summarizer: extractiveSummarizer() });
 */
export function extractiveSummarizer(): Summarizer {
  return async function extractiveSummary({ entries, instruction, priorSummary, maxTokens, countTokens }) {
    const keywords = (instruction ?? '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}_.-]+/u)
      .filter((w) => w.length >= 4);
    const sections = parseSummary(priorSummary);
    if (entries.length > 0) sections.push(sectionOf(entries));
    if (keywords.length > 0) {
      for (const line of sections.flatMap((s) => s.lines)) {
        const lower = line.text.toLowerCase();
        if (keywords.some((k) => lower.includes(k))) line.weight += 3;
      }
    }
    return renderSummary(
      sections,
      maxTokens,
      countTokens ?? ((text) => Math.ceil(text.length / CHARS_PER_TOKEN)),
    );
  };
}

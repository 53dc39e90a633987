import type { Summarizer } from '../summarizer.ts';
import { type Entry, firstLine, inputText, outputText, squash, toolCalls } from '../transcript.ts';

const CHARS_PER_TOKEN = 3.5;

interface Line {
  text: string;
  /** Higher survives trimming longer. */
  weight: number;
}

function linesOf(entries: readonly Entry[], keywords: readonly string[]): Line[] {
  const lines: Line[] = [];
  const resultsByCall = new Map<string, { output: string; isError: boolean }>();
  for (const entry of entries) {
    for (const part of entry.parts) {
      if (part.type === 'tool-result')
        resultsByCall.set(part.callId, { output: outputText(part.output), isError: part.isError === true });
    }
  }
  const assistantLines: number[] = [];
  for (const entry of entries) {
    const text = entry.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    if (entry.role === 'user' && text.trim()) lines.push({ text: `- User: ${squash(text, 400)}`, weight: 3 });
    if (entry.role === 'assistant') {
      if (text.trim()) {
        assistantLines.push(lines.length);
        lines.push({ text: `- Assistant: ${squash(text, 300)}`, weight: 1 });
      }
      for (const call of toolCalls(entry)) {
        const result = resultsByCall.get(call.id);
        const outcome = result
          ? `${result.isError ? 'error' : 'ok'}, ${result.output.length} chars: ${squash(firstLine(result.output, 120), 120)}`
          : 'no result';
        lines.push({
          text: `- Called ${call.name}(${squash(inputText(call.input), 120)}) -> ${outcome}`,
          weight: 2,
        });
      }
    }
  }
  // The latest conclusions matter most for continuing the work.
  for (const index of assistantLines.slice(-3)) lines[index]!.weight = 4;
  if (keywords.length > 0) {
    for (const line of lines) {
      const lower = line.text.toLowerCase();
      if (keywords.some((k) => lower.includes(k))) line.weight += 3;
    }
  }
  return lines;
}

/**
 * The default summarizer: deterministic and extractive, no model needed. Keeps every user
 * request, each tool call with a one-line result, and the assistant's latest conclusions;
 * when over `maxTokens` it drops the lowest-weight lines (words of the instruction raise a
 * line's weight) and says how many it dropped.
 *
 * @example
 * createBaton({ model: 'gpt-4o', summarizer: extractiveSummarizer() });
 */
export function extractiveSummarizer(): Summarizer {
  return async function extractiveSummary({ entries, instruction, priorSummary, maxTokens }) {
    const keywords = (instruction ?? '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}_.-]+/u)
      .filter((w) => w.length >= 4);
    const maxChars = Math.max(80, Math.floor(maxTokens * CHARS_PER_TOKEN));
    const header: string[] = [];
    if (priorSummary) header.push(`Earlier: ${squash(priorSummary, Math.floor(maxChars / 3))}`);
    const lines = linesOf(entries, keywords);
    let budget = maxChars - header.join('\n').length - 40;
    const keep = new Set<number>();
    const order = lines
      .map((line, index) => ({ line, index }))
      .sort((a, b) => b.line.weight - a.line.weight || b.index - a.index);
    for (const { line, index } of order) {
      if (line.text.length + 1 > budget) continue;
      budget -= line.text.length + 1;
      keep.add(index);
    }
    const body = lines.filter((_, index) => keep.has(index)).map((l) => l.text);
    const omitted = lines.length - keep.size;
    if (omitted > 0) body.push(`- (${omitted} less important line${omitted === 1 ? '' : 's'} omitted)`);
    return [...header, ...body].join('\n');
  };
}

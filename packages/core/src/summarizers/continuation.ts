import type { TextCompletion } from '../contracts/host-model.ts';
import type { Summarizer } from '../contracts/summarizer.ts';
import type { Rubric } from '../probes/rubrics.ts';
import { type Entry, inputText, outputText } from '../transcript/transcript.ts';

/** The heading of the section every continuation summary carries forward, line for line. */
export const VERBATIM_HEADING = 'Kept verbatim:';

/** The `- ` lines of a summary's verbatim section. */
export function verbatimLines(summary: string): string[] {
  const lines = summary.split('\n');
  const start = lines.findIndex((l) => l.trim() === VERBATIM_HEADING);
  if (start < 0) return [];
  const kept: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('- ')) break;
    kept.push(line);
  }
  return kept;
}

/**
 * Puts every verbatim line of the prior summary back when the model dropped it: repeated
 * summaries must not wear found answers down (the model is asked to keep them; this makes sure).
 */
export function carryVerbatim(summary: string, prior: string | undefined): string {
  const required = prior ? verbatimLines(prior) : [];
  const present = new Set(verbatimLines(summary));
  const missing = required.filter((line) => !present.has(line));
  if (missing.length === 0) return summary;
  const lines = summary.split('\n');
  const at = lines.findIndex((l) => l.trim() === VERBATIM_HEADING);
  if (at < 0) return [VERBATIM_HEADING, ...missing, '', summary].join('\n');
  lines.splice(at + 1, 0, ...missing);
  return lines.join('\n');
}

function render(entry: Entry): string {
  const body = entry.parts
    .map((part) => {
      switch (part.type) {
        case 'text':
          return part.text;
        case 'tool-call':
          return `[call ${part.name}(${inputText(part.input)})]`;
        case 'tool-result':
          return `[result of ${part.name}${part.isError ? ', error' : ''}]\n${outputText(part.output)}`;
        default:
          return part.text ?? `[${part.kind}]`;
      }
    })
    .join('\n');
  return `${entry.role.toUpperCase()}: ${body}`;
}

/**
 * A continuation summarizer backed by the host's model, for one kind of work (the rubric's
 * instruction says what to keep). The prior summary is an input to extend, not text to
 * condense again; its `Kept verbatim:` lines survive every later summary.
 */
export function continuationSummarizer(
  complete: TextCompletion,
  rubric: Pick<Rubric, 'id' | 'summaryInstruction'>,
): Summarizer {
  return async ({ entries, instruction, priorSummary, maxTokens, signal }) => {
    const system = [
      `You write the continuation summary of an agent's ${rubric.id === 'general' ? '' : `${rubric.id} `}work so far, so the agent can continue from it alone.`,
      rubric.summaryInstruction,
      `Start with a "${VERBATIM_HEADING}" section: one "- " line each for answers found, exact values, identifiers and quotes that must not change, copied character for character; keep every such line of the earlier summary.`,
      'Then the summary proper. Be concise; never invent facts.',
    ].join('\n');
    const prompt = [
      ...(priorSummary ? ['Earlier summary (extend it; keep what still matters):', priorSummary, ''] : []),
      ...(instruction ? [`The agent asked the summary to: ${instruction}`, ''] : []),
      'Conversation to summarize:',
      ...entries.map(render),
      '',
      'Write the continuation summary now.',
    ].join('\n');
    const summary = (await complete({ system, prompt, maxTokens, ...(signal ? { signal } : {}) })).trim();
    if (summary.length === 0) throw new Error('the model returned an empty summary');
    return carryVerbatim(summary, priorSummary);
  };
}

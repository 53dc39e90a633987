import { detachedCopy } from '../contracts/store.ts';
import type { Summarizer } from '../contracts/summarizer.ts';
import { contentOf, type Entry, outputText, type Part } from '../transcript/transcript.ts';
import { hash64 } from '../util/hash.ts';
import { withTimeout } from '../util/timeout.ts';

export interface BoundedSummaryDeps {
  summarizer: Summarizer;
  /** Tokens of an entry / of a text, calibrated. */
  countEntry(entry: Entry): number;
  countText(text: string): number;
  maxInputTokens: number;
  maxTokens: number;
  /** Deadline of each summarizer call. */
  timeoutMs: number;
  /** Summaries by span hash + instruction, shared across the sessions of one Baton. */
  memo: Map<string, string>;
}

const MEMO_LIMIT = 500;

/** Cuts a text until it fits `maxTokens`, marking the cut. */
export function clipToTokens(text: string, maxTokens: number, countText: (text: string) => number): string {
  let clipped = text;
  let tokens = countText(clipped);
  while (tokens > maxTokens && clipped.length > 0) {
    const keep = Math.floor(clipped.length * (maxTokens / tokens) * 0.9);
    clipped = `${clipped.slice(0, Math.max(0, keep - 2))}…`;
    tokens = countText(clipped);
  }
  return clipped;
}

/** Head and tail of a text too large for one summarizer call. */
function headTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.7);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n[… ${text.length - maxChars} chars omitted …]\n${text.slice(text.length - tail)}`;
}

function clipEntry(entry: Entry, maxTokens: number, tokens: number): Entry {
  const ratio = maxTokens / tokens;
  const parts = entry.parts.map((part): Part => {
    if (part.type === 'text')
      return { ...part, text: headTail(part.text, Math.floor(part.text.length * ratio)) };
    if (part.type === 'tool-result') {
      const text = outputText(part.output);
      return { ...part, output: headTail(text, Math.floor(text.length * ratio)) };
    }
    return part;
  });
  return { ...entry, parts };
}

/** Splits a span into chunks of at most `maxTokens`, clipping single entries larger than that. */
function chunk(entries: readonly Entry[], deps: BoundedSummaryDeps, maxTokens: number): Entry[][] {
  const chunks: Entry[][] = [];
  let current: Entry[] = [];
  let size = 0;
  for (const original of entries) {
    let entry = original;
    let tokens = deps.countEntry(entry);
    if (tokens > maxTokens) {
      entry = clipEntry(entry, maxTokens * 0.9, tokens);
      tokens = deps.countEntry(entry);
    }
    if (size + tokens > maxTokens && current.length > 0) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(entry);
    size += tokens;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

async function callOnce(
  deps: BoundedSummaryDeps,
  entries: Entry[],
  instruction?: string,
  priorSummary?: string,
): Promise<string> {
  const text = await withTimeout(
    (signal) =>
      deps.summarizer({
        // A copy: a summarizer is user code, and one that edits its input must not rewrite the
        // host's messages or the records archived from them.
        entries: detachedCopy(entries as Entry[]),
        maxTokens: deps.maxTokens,
        countTokens: deps.countText,
        signal,
        ...(instruction !== undefined ? { instruction } : {}),
        ...(priorSummary !== undefined ? { priorSummary } : {}),
      }),
    deps.timeoutMs,
    'the summarizer',
  );
  if (typeof text !== 'string' || text.trim().length === 0) throw new Error('summarizer returned no text');
  return text;
}

/**
 * Summarizes a span of any size with a summarizer whose input is bounded: the span is cut into
 * chunks that fit `maxInputTokens` together with the running summary, and each chunk extends
 * the summary of the ones before it (one document, never a summary of summaries), then a hard
 * cut to `maxTokens`. Memoized by the content of the span plus the instruction, so the same
 * span is never summarized twice. Throws when the summarizer fails; the summarize stage turns
 * that into a fall-through.
 */
export async function boundedSummarize(
  deps: BoundedSummaryDeps,
  entries: readonly Entry[],
  instruction?: string,
  priorSummary?: string,
): Promise<string> {
  const memoKey = hash64(
    `${instruction ?? ''}\u0000${priorSummary ?? ''}\u0000${deps.maxTokens}\u0000${entries.map((e) => contentOf(e.role, e.parts)).join('\u0000')}`,
  );
  const known = deps.memo.get(memoKey);
  if (known !== undefined) return known;

  // Room for the running summary beside each chunk; half the input at least.
  const chunkTokens = Math.max(Math.floor(deps.maxInputTokens / 2), deps.maxInputTokens - deps.maxTokens);
  let summary = priorSummary;
  for (const piece of chunk(entries, deps, chunkTokens)) {
    summary = clipToTokens(await callOnce(deps, piece, instruction, summary), deps.maxTokens, deps.countText);
  }
  const result = summary ?? '';

  if (deps.memo.size >= MEMO_LIMIT) {
    const oldest = deps.memo.keys().next().value;
    if (oldest !== undefined) deps.memo.delete(oldest);
  }
  deps.memo.set(memoKey, result);
  return result;
}

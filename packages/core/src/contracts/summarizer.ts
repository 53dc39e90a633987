import type { Entry } from '../transcript/transcript.ts';

/** Input of a summarizer: the span to condense, bounded to `maxSummaryInputTokens` by the caller. */
export interface SummarizerInput {
  entries: Entry[];
  /** What the agent (compact tool) or a probe asked the summary to keep. */
  instruction?: string;
  /** The summary this span continues, when it absorbs an earlier one. */
  priorSummary?: string;
  /** Upper bound for the answer; longer answers are cut. */
  maxTokens: number;
  /**
   * Tokens of a text as the budget counts them (calibrated): lets a summarizer fit
   * `maxTokens` exactly. Given by Baton; absent when you call a summarizer yourself.
   */
  countTokens?: (text: string) => number;
  /** Aborted when the call passes `summaryTimeoutMs`: pass it on to the model call. */
  signal?: AbortSignal;
}

/** Turns a span of history into a continuation summary. May be model-backed; may throw (the ladder falls through). */
export type Summarizer = (input: SummarizerInput) => Promise<string>;

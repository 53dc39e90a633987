import type { TextCompletion } from '../contracts/host-model.ts';
import type { Stage } from '../contracts/stage.ts';
import type { Summarizer } from '../contracts/summarizer.ts';
import type { CalibrationSeed } from '../tokens/calibration.ts';
import type { TokenCounter } from '../tokens/token-counter.ts';
import type { PinPolicy } from '../transcript/groups.ts';
import type { BatonSettings, ResolvedOptions } from './options.ts';

/** One call's engine: the shared parts, with the options resolved for the call's window. */
export interface Engine extends Omit<BaseEngine, 'options'> {
  options: ResolvedOptions;
}

/** Shared by all sessions of one `createBaton` call. */
export interface BaseEngine {
  options: BatonSettings;
  /** Exact counts, memoized for every session (each calibrates its own view: `withRatio`). */
  counter: TokenCounter;
  /** What the process learnt of the provider's counts: a new session's starting ratio. */
  calibrationSeed: CalibrationSeed;
  stages: readonly Stage[];
  /** The summarize stages among `stages` (all of them when there is none): what a probe's COMPRESS runs. */
  summarizeStages: readonly Stage[];
  pinPolicy: PinPolicy;
  summaryMemo: Map<string, string>;
  /** Model-backed continuation summarizers by the host's completion function, each with its own memo. */
  continuations: WeakMap<TextCompletion, { summarizer: Summarizer; memo: Map<string, string> }>;
}

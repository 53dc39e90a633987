import type { ResolvedOptions } from '../budget/options.ts';
import type { SessionState } from '../contracts/session-state.ts';

/** A compaction asked for before this call: by the agent (`compact`), an overflow, or a probe. */
export type CompactionRequest = NonNullable<SessionState['pendingCompaction']>;

/** How far this call compacts, if at all. */
export interface CompactionPlan {
  /** Whether the ladder runs. */
  run: boolean;
  /** Tokens the ladder stops at (0 for a probe's COMPRESS: the whole closed unit is condensed). */
  target: number;
  /** Above this the destructive stage may run. */
  truncateLimit: number;
}

type Thresholds = Pick<
  ResolvedOptions,
  'compactAt' | 'targetAt' | 'truncateAt' | 'inputBudget' | 'minCompactionGain'
>;

/** Above `compactAt`: the ladder runs whatever the agent or a probe said. */
export function backstopReached(tokens: number, options: Thresholds): boolean {
  return tokens > options.compactAt * options.inputBudget;
}

/**
 * When and how far to compact, from the tokens before this call and what was asked. An
 * explicit request compacts even below `targetAt` (the agent chose a closed unit of work), to
 * at most half of what is there; an overflow's request tightens the target and lets the
 * destructive stage reach it; a probe's COMPRESS (`early`) aims at 0 so the summarize stage
 * condenses the whole closed unit. The backstop waits while the prompt sits on a known
 * `floor` (the lowest the ladder reached, above target): until it grew `minCompactionGain`
 * of the budget above it, or crossed `truncateAt` (where older turns may be dropped), or the
 * budget itself, running the ladder again would only break the cache for a few hundred
 * tokens. Pure: the same inputs give the same plan.
 */
export function planCompaction(
  before: number,
  request: CompactionRequest | undefined,
  early: boolean,
  options: Thresholds,
  floor?: number,
): CompactionPlan {
  const budget = options.inputBudget;
  const target = early
    ? 0
    : request
      ? Math.min(options.targetAt * budget * (request.tighten ?? 1), before * 0.5)
      : options.targetAt * budget;
  const truncateLimit = request?.tighten ? target : options.truncateAt * budget;
  const onFloor =
    floor !== undefined && before - floor < minGain(options) && before <= truncateLimit && before <= budget;
  return {
    run: (backstopReached(before, options) && !onFloor) || (request !== undefined && before > target),
    target,
    truncateLimit,
  };
}

/** Tokens a compaction the backstop started must free to be kept. */
export function minGain(options: Pick<ResolvedOptions, 'minCompactionGain' | 'inputBudget'>): number {
  return options.minCompactionGain * options.inputBudget;
}

/**
 * The warning episode: once per crossing of `warnAt` (with the prompt still within budget),
 * re-armed only by a compaction that brought the prompt back below `warnAt`. Returns the new
 * `warned` flag and whether to show the warning now.
 */
export function nextWarning(
  warned: boolean,
  compacted: boolean,
  tokens: number,
  options: Pick<ResolvedOptions, 'warnAt' | 'inputBudget'>,
): { warned: boolean; show: boolean } {
  const budget = options.inputBudget;
  const rearmed = warned && compacted && tokens <= options.warnAt * budget ? false : warned;
  const show = !rearmed && tokens > options.warnAt * budget && tokens <= budget;
  return { warned: rearmed || show, show };
}

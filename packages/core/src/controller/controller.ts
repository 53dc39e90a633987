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
  /**
   * A backstop compaction of a session that compacted before: it aims lower, since its floor
   * sets what every call until the next one costs.
   */
  steady: boolean;
  /**
   * A steady-state compaction the cache rent started before `compactAt`: it also protects
   * fewer recent turns (`steadyOptions`). Where the backstop comes first (small windows) the
   * recent turns stay protected: there the next compaction is a few calls away anyway.
   */
  timedByRent: boolean;
}

/** Where a session stands since its last compaction (none yet: both false). */
export interface SinceCompaction {
  /** The session compacted before. */
  compacted: boolean;
  /** The reads spent on the growth since repay rewriting the prompt (`rentDue`). */
  rentDue: boolean;
}

/**
 * The target of a steady-state compaction, as a share of `targetAt`: 0.2 of the budget with
 * the defaults. Measured 2026-12-02 (`baton replay`, 2,000 and 4,000 messages back to back and
 * revisiting): with the rent trigger alone the cost at 32k stayed at 0.96-0.98x of compacting
 * every ten calls; aiming here, with two protected turns where the rent started the
 * compaction, brought it to 0.90-0.92x with refs in the prompt above a sliding window's, while
 * the twelve corpus conversations (few compactions each) kept 97.9% at 32k and 93.6% at 16k.
 */
export const STEADY_TARGET_SHARE = 2 / 3;

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
 * tokens. Once the session has compacted, the backstop also runs when the cache reads spent on
 * the growth since have paid for the rewrite (`since.rentDue`, cache-rent.ts); its backstop
 * compactions aim at `STEADY_TARGET_SHARE` of the target, and those the rent started protect
 * fewer recent turns. Pure: the same inputs
 * give the same plan.
 */
export function planCompaction(
  before: number,
  request: CompactionRequest | undefined,
  early: boolean,
  options: Thresholds,
  floor?: number,
  since: SinceCompaction = { compacted: false, rentDue: false },
): CompactionPlan {
  const budget = options.inputBudget;
  // compactAt 1 turns threshold compaction off (only requests compact): the steady state's too.
  const steady = since.compacted && options.compactAt < 1 && request === undefined && !early;
  const target = early
    ? 0
    : request
      ? Math.min(options.targetAt * budget * (request.tighten ?? 1), before * 0.5)
      : options.targetAt * budget * (steady ? STEADY_TARGET_SHARE : 1);
  const truncateLimit = request?.tighten ? target : options.truncateAt * budget;
  const onFloor =
    floor !== undefined && before - floor < minGain(options) && before <= truncateLimit && before <= budget;
  const timedByRent = steady && since.rentDue && !backstopReached(before, options) && before > target;
  const due = backstopReached(before, options) || timedByRent;
  return {
    run: (due && !onFloor) || (request !== undefined && before > target),
    target,
    truncateLimit,
    steady,
    timedByRent,
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

import type { ResolvedOptions } from '../budget/options.ts';
import { isBuiltInStage } from '../contracts/stage.ts';
import { continueLadder, type LadderInput, type LadderOutput } from '../ladder/ladder.ts';
import { isDestructive } from '../ladder/ladder-order.ts';
import { minGain } from './controller.ts';

/** Newest groups the summarize stage leaves verbatim once the floor holds (default 3 otherwise). */
export const FLOOR_KEEP_RECENT_GROUPS = 2;
/** Newest tool results left unfolded once the floor holds (default 3 otherwise). */
export const FLOOR_KEEP = 2;

/**
 * Protections a compaction the cache rent started (`CompactionPlan.timedByRent`) runs with: the newest two
 * turns verbatim (as many as a user configured when that is fewer); the newest results stay
 * unfolded as configured. Its floor is what every call until the next compaction pays for.
 */
export function steadyOptions(options: ResolvedOptions): ResolvedOptions {
  return { ...options, keepRecentGroups: Math.min(options.keepRecentGroups, FLOOR_KEEP_RECENT_GROUPS) };
}

/**
 * Protections the ladder runs with when what it kept does not repay the compaction: the newest
 * two turns verbatim, as many as a user configured when that is fewer.
 */
export function floorOptions(options: ResolvedOptions): ResolvedOptions {
  return {
    ...options,
    keepRecentGroups: Math.min(options.keepRecentGroups, FLOOR_KEEP_RECENT_GROUPS),
    keep: Math.min(options.keep, FLOOR_KEEP),
  };
}

/**
 * The steady state of a long run. A backstop compaction whose ladder stopped more than
 * `minCompactionGain` above its target leaves a floor the prompt regrows from within a few
 * calls: the recent turns the stages protect hold it (in a tool loop the newest four groups and
 * three unfolded results are most of a small window, the rest is summaries and digests), so
 * every few calls the cache was rewritten for a couple of thousand tokens. Instead the ladder
 * runs once more over what it reached, its non-destructive stages protecting only the newest
 * two turns, and the compaction frees enough to be spaced well apart (2,000 messages at 16k,
 * measured 2026-12-02: one compaction every 8.5 calls instead of every 5.5, refs in the prompt
 * 91.4% against 90.9%). Destructive and degrading stages do not run again: the floor is the
 * agent's own recent work, not a reason to drop history; a user's stage is not run twice.
 * Decisions of the two runs apply in order, like stages; a built-in stage made with its own
 * `keep` or `keepRecentGroups` keeps them.
 */
export async function shrinkFloor(input: LadderInput, first: LadderOutput): Promise<LadderOutput> {
  if (first.tokens <= input.target + minGain(input.options)) return first;
  const relaxed = floorOptions(input.options);
  if (relaxed.keep === input.options.keep && relaxed.keepRecentGroups === input.options.keepRecentGroups)
    return first;
  // The built-in stages are the ones that read these protections; a user's stage runs once.
  const stages = input.stages.filter(
    (stage) => isBuiltInStage(stage) && !isDestructive(stage) && stage.degrades !== true,
  );
  const second = await continueLadder(input, first, { stages, options: relaxed });
  return second.decisions.length === first.decisions.length ? first : second;
}

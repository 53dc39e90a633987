import type { Stage } from '../contracts/stage.ts';
import { type Group, hasUnconsumedResults, isProtected } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';

/**
 * Stages that remove history outright (what they drop leaves the prompt; only a marker stays):
 * `truncateOldest()` and any stage declared `destructive` (`defineStage(name, run, { destructive: true })`).
 */
export function isDestructive(stage: Stage): boolean {
  return stage.destructive === true;
}

/**
 * Whether the previews of fresh results must come before a destructive stage: true when the
 * request is above the budget and stays above it even if every group truncation may take were
 * gone. Then what holds the floor is a fresh result too large for the window, `degrade` runs
 * anyway, and truncating first would destroy older context for no room at all (the demo's
 * step 36 dropped 10 entries, 1.7k tokens, before a preview freed 93k).
 *
 * @example
 * if (degradesFirst(groups, tokens, budget, count)) // run degrade, results only, then truncate
 */
export function degradesFirst(
  groups: readonly Group[],
  tokens: number,
  budget: number,
  count: (entry: Entry) => number,
): boolean {
  if (tokens <= budget) return false;
  // Counted generously (every unprotected group without unseen results, markers and digests
  // included): the floor is a lower bound, so degrade moves ahead only when truncation cannot win.
  let truncatable = 0;
  for (const group of groups) {
    if (isProtected(group) || hasUnconsumedResults(group)) continue;
    for (const entry of group.entries) truncatable += count(entry);
  }
  return tokens - truncatable > budget;
}

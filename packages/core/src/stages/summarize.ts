import { describeError } from '../errors.ts';
import { type Group, hasUnconsumedResults, isProtected } from '../groups.ts';
import type { ReplaceDecision } from '../ledger.ts';
import { defineStage, FreedTokens, type Stage } from '../stage.ts';
import { entryText } from '../transcript.ts';
import { recallRangeHint, replaceWith } from './spans.ts';

export interface SummarizeOptions {
  /** Newest groups never summarized. Default: the `keepRecentGroups` option (4). */
  keepRecentGroups?: number;
}

const MIN_SPAN_TOKENS = 256;

export const SUMMARY_HEADER = '[baton] Summary of earlier conversation';

/** Runs of adjacent groups the summarize stage may take, oldest first. */
function eligibleRuns(groups: readonly Group[], keepRecent: number): Group[][] {
  const runs: Group[][] = [];
  let run: Group[] = [];
  const limit = groups.length - keepRecent;
  groups.forEach((group, index) => {
    const eligible = index < limit && !isProtected(group) && !hasUnconsumedResults(group);
    if (eligible) run.push(group);
    else if (run.length > 0) {
      runs.push(run);
      run = [];
    }
  });
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Stage 3: replaces the oldest span of history (never system, the first or latest request,
 * pinned groups or the newest turns) with a continuation summary. Takes only as much of the
 * span as the target needs. A summarizer failure ends the stage with an event and no change:
 * history is never replaced by an error text.
 */
export function summarize({ keepRecentGroups }: SummarizeOptions = {}): Stage {
  return defineStage('summarize', async function summarizeStage(ctx) {
    const keepRecent = keepRecentGroups ?? ctx.options.keepRecentGroups;
    const freed = new FreedTokens(ctx);
    const decisions: ReplaceDecision[] = [];
    for (const run of eligibleRuns(ctx.groups, keepRecent)) {
      if (freed.reachedTarget) break;
      const needed = freed.remaining - ctx.target + ctx.options.maxSummaryTokens;
      const taken: Group[] = [];
      let spanTokens = 0;
      for (const group of run) {
        if (spanTokens >= needed) break;
        taken.push(group);
        spanTokens += group.entries.reduce((sum, e) => sum + ctx.count(e), 0);
      }
      // Re-summarizing a lone summary, or a span smaller than a short summary, frees nothing.
      if (spanTokens < MIN_SPAN_TOKENS || taken.every((g) => g.kind === 'synthetic')) continue;
      const first = taken[0]!.entries[0]!;
      const prior =
        first.meta?.synthetic === 'summary'
          ? entryText(first).split('\n').slice(1).join('\n').trim()
          : undefined;
      const entries = taken.flatMap((g) => g.entries).filter((e) => e !== first || prior === undefined);
      let summary: string;
      try {
        summary = await ctx.summarize(entries, prior);
      } catch (error) {
        ctx.emit({ type: 'summarizer-failed', stage: 'summarize', error: describeError(error) });
        break;
      }
      const decision = replaceWith(
        'summarize',
        taken,
        'summary',
        'user',
        ([from, to], spanEntries) =>
          `${SUMMARY_HEADER} (seq ${from}-${to}, ${spanEntries.length} messages; ${recallRangeHint(from, to)} returns them verbatim):\n${summary}`,
      );
      const saving = spanTokens - ctx.count(decision.entries[0]!);
      if (saving <= 0) continue;
      decisions.push(decision);
      freed.add(saving);
    }
    return { decisions };
  });
}

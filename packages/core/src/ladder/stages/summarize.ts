import { builtInStage, FreedTokens, type Stage } from '../../contracts/stage.ts';
import type { ReplaceDecision } from '../../ledger/ledger.ts';
import { NAMES_PREFIX } from '../../summarizers/summary-document.ts';
import { type Group, hasUnconsumedResults, isProtected } from '../../transcript/groups.ts';
import { identifierIndex } from '../../transcript/identifiers.ts';
import { messagesHeld } from '../../transcript/seq-ranges.ts';
import { type Entry, entryText } from '../../transcript/transcript.ts';
import { describeError } from '../../util/errors.ts';
import { recallRangeHint, replaceWith } from './spans.ts';
import { markerNames } from './truncate-oldest.ts';

export interface SummarizeOptions {
  /** Newest groups never summarized. Default: the `keepRecentGroups` option (3). */
  keepRecentGroups?: number;
}

/** A span smaller than this frees nothing a summary would not cost back. */
export const MIN_SPAN_TOKENS = 256;

export const SUMMARY_HEADER = '[baton] Summary of earlier conversation';
/**
 * Characters of names per token of summary budget, and at most: a name is what the agent looks
 * for next, and a line of them carries more of those per token than the summary's prose. On
 * the 2,000-message long run (2026-12-02) two characters per token instead of one kept 92.9%
 * of references at 16k (was 91.0%) for 3% more prompt; past about 4,000 characters (32k and up)
 * a longer line displaced more verbatim messages than it gained (95.4% against 96.0%).
 */
const NAMES_SHARE = 2;
const MAX_NAMES_CHARS = 4_000;

/** A summary entry's text split into what the summarizer wrote and the names index under it. */
function priorOf(text: string): { summary: string; names: string } {
  const lines = text.split('\n').slice(1);
  const names = lines.at(-1)?.startsWith(NAMES_PREFIX) ? lines.pop()!.slice(NAMES_PREFIX.length) : '';
  return { summary: lines.join('\n').trim(), names };
}

const isSummary = (group: Group) => group.entries.every((e) => e.meta?.synthetic === 'summary');

/** Tokens of the digests and placeholders (not the summary) in a run. */
const syntheticTokens = (run: readonly Group[], count: (entry: Entry) => number) =>
  run
    .filter((g) => g.kind === 'synthetic' && !isSummary(g))
    .reduce((sum, g) => sum + g.entries.reduce((s, e) => s + count(e), 0), 0);

/** Runs of adjacent groups the summarize stage may take, oldest first. */
export function eligibleRuns(groups: readonly Group[], keepRecent: number): Group[][] {
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
 * pinned groups or the newest turns) with a continuation summary, followed by one line of the
 * names (paths, symbols, codes) in the span that the summary does not show, newest first, at
 * most two characters per `maxSummaryTokens` (4,000 at most); a later summary keeps them in its
 * own line, and the names a truncation marker in the span lists come first. Takes only
 * as much of the span as the target needs; digests of earlier compactions are taken once they
 * hold a summary's worth. A summarizer failure ends the stage with an event and no change:
 * history is never replaced by an error text.
 */
export function summarize({ keepRecentGroups }: SummarizeOptions = {}): Stage {
  return builtInStage('summarize', async function summarizeStage(ctx) {
    const keepRecent = keepRecentGroups ?? ctx.options.keepRecentGroups;
    const freed = new FreedTokens(ctx);
    const decisions: ReplaceDecision[] = [];
    const namesChars = Math.min(MAX_NAMES_CHARS, Math.floor(ctx.options.maxSummaryTokens * NAMES_SHARE));
    for (const run of eligibleRuns(ctx.groups, keepRecent)) {
      if (freed.reachedTarget) break;
      // What the span must hold for its summary (and the names under it: identifiers run near
      // two characters a token) to leave the prompt at the target.
      const needed = freed.remaining - ctx.target + ctx.options.maxSummaryTokens + namesChars / 2;
      const taken: Group[] = [];
      let spanTokens = 0;
      for (const group of run) {
        if (spanTokens >= needed) break;
        taken.push(group);
        spanTokens += group.entries.reduce((sum, e) => sum + ctx.count(e), 0);
      }
      // Re-summarizing a lone summary, or a span smaller than a short summary, frees nothing.
      if (spanTokens < MIN_SPAN_TOKENS || taken.every(isSummary)) continue;
      // Digests an earlier compaction left pile up one per compaction until they alone hold the
      // target, but each new one is appended behind the cached prompt while folding them into
      // the summary rewrites it: they are summarized once they hold a summary's worth.
      if (
        taken.every((g) => g.kind === 'synthetic') &&
        syntheticTokens(run, ctx.count) < ctx.options.maxSummaryTokens
      )
        continue;
      const first = taken[0]!.entries[0]!;
      const prior = first.meta?.synthetic === 'summary' ? priorOf(entryText(first)) : undefined;
      const entries = taken.flatMap((g) => g.entries).filter((e) => e !== first || prior === undefined);
      let summary: string;
      try {
        summary = await ctx.summarize(entries, prior?.summary);
      } catch (error) {
        ctx.emit({ type: 'summarizer-failed', stage: 'summarize', error: describeError(error) });
        break;
      }
      // The names the summary leaves out stay in sight (a summary keeps what happened, the
      // agent looks for the paths and symbols next), newest first, bounded. A truncation
      // marker's names come first: they are all that is left of what it dropped.
      const names = identifierIndex(
        [
          ...entries.map(markerNames).reverse(),
          ...entries
            .filter((e) => e.meta?.synthetic !== 'marker')
            .map(entryText)
            .reverse(),
          prior?.names ?? '',
        ].join('\n'),
        summary,
        namesChars,
      );
      const decision = replaceWith(
        'summarize',
        taken,
        'summary',
        'user',
        ([from, to], spanEntries) =>
          `${SUMMARY_HEADER} (seq ${from}-${to}, ${messagesHeld(spanEntries)} messages; ${recallRangeHint(from, to)} returns them verbatim):\n${summary}${names ? `\n${NAMES_PREFIX}${names}` : ''}`,
      );
      const saving = spanTokens - ctx.count(decision.entries[0]!);
      if (saving <= 0) continue;
      decisions.push(decision);
      freed.add(saving);
    }
    return { decisions };
  });
}

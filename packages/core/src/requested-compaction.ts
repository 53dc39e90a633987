import { planCompaction } from './controller.ts';
import { buildGroups, type PinPolicy } from './groups.ts';
import { type LadderInput, type LadderOutput, runLadder } from './ladder.ts';
import type { EvictedSpan } from './notices.ts';
import type { ResolvedOptions } from './options.ts';
import type { Notice } from './prepared.ts';
import { type Stage, stageNameOf } from './stage.ts';
import { eligibleRuns, MIN_SPAN_TOKENS } from './stages/summarize.ts';
import type { Entry } from './transcript.ts';

const SUMMARIZE = 'summarize';

/**
 * The ladder for a compaction the agent asked for with an instruction: the summarize stages
 * first, down to 0 (every older turn the stage may take), so the instruction shapes what
 * replaces them even when folding alone would reach the target; then the usual ladder from
 * there while still above target. Without an instruction, or with no summarize stage
 * configured, it is the usual ladder. Decisions of the two runs apply in order, like stages.
 */
export async function runRequestedLadder(
  input: LadderInput & { instructed: boolean },
): Promise<LadderOutput> {
  const { stages, instructed } = input;
  const summarizers = stages.filter((stage) => stageNameOf(stage) === SUMMARIZE);
  if (!instructed || summarizers.length === 0) return runLadder({ ...input, stages });
  const first = await runLadder({ ...input, stages: summarizers, target: 0 });
  const rest = await runLadder({
    ...input,
    entries: first.entries,
    stages,
    noticeTokens: (spans) => input.noticeTokens([...first.spans, ...spans]),
  });
  return {
    entries: rest.entries,
    tokens: rest.tokens,
    decisions: [...first.decisions, ...rest.decisions],
    spans: [...first.spans, ...rest.spans],
  };
}

/**
 * Ends the eviction notice of an instructed compaction with what became of the instruction:
 * which span the summary following it replaced, or that none could be written and why.
 */
export function tellInstructionOutcome(
  notices: Notice[],
  spans: readonly EvictedSpan[],
  summaryFailed: boolean,
): void {
  const eviction = notices.find((n) => n.type === 'eviction');
  if (!eviction) return;
  const summarized = spans.filter((span) => span.stage === SUMMARIZE);
  const ranges = summarized.map((s) => (s.from === s.to ? `seq ${s.from}` : `seq ${s.from}-${s.to}`));
  const line =
    summarized.length > 0
      ? `Your compact instruction was followed: the summary of ${ranges.join(', ')} is written to it.`
      : summaryFailed
        ? 'Your compact instruction could not be followed: the summarizer failed, so no summary was written; your notes (checkpoint included) hold what you saved.'
        : 'Your compact instruction could not be followed: no older turns could be summarized.';
  eviction.text = `${eviction.text}\n${line}`;
}

/** What the last projection offers a compaction the agent asks for now. */
export interface CompactionPreview {
  /** Tokens of the last request (0 before the first call). */
  tokens: number;
  /** Tokens the requested compaction aims at: `targetAt` of the budget, at most half of `tokens`. */
  target: number;
  /** The older turns a summary may replace: seq range, messages, tokens; undefined when none. */
  span?: { from: number; to: number; messages: number; tokens: number };
  /** Older tool results the fold stage may still fold. */
  foldable: number;
  /** Whether a summarize stage is configured. */
  summarizes: boolean;
}

/**
 * From the last projection (as the next call will see it, the compact call's own step added
 * as one newer group), what a requested compaction can take: the span the summarize stage may
 * replace and the older tool results left to fold. Counts only; nothing is summarized here.
 */
export function previewCompaction(
  last: { entries: readonly Entry[]; pinPolicy: PinPolicy; tokens: number } | undefined,
  engine: { options: ResolvedOptions; stages: readonly Stage[] },
  counter: { count(entry: Entry): number },
): CompactionPreview {
  const { options, stages } = engine;
  const count = (entry: Entry) => counter.count(entry);
  const summarizes = stages.some((stage) => stageNameOf(stage) === SUMMARIZE);
  if (!last) return { tokens: 0, target: 0, foldable: 0, summarizes };
  const target = planCompaction(last.tokens, {}, false, options).target;
  const groups = buildGroups(last.entries, last.pinPolicy);
  // The compact call's step is one more group after these: the newest kept move up by one.
  const runs = eligibleRuns(groups, Math.max(0, options.keepRecentGroups - 1));
  const taken = runs.flat();
  const entries = taken.flatMap((g) => g.entries);
  const tokens = entries.reduce((sum, e) => sum + count(e), 0);
  const foldable = taken.reduce(
    (sum, g) => sum + g.entries.filter((e) => e.role === 'tool' && e.meta?.synthetic === undefined).length,
    0,
  );
  const span =
    tokens >= MIN_SPAN_TOKENS && entries.length > 0
      ? { from: entries[0]!.seq, to: entries.at(-1)!.seq, messages: entries.length, tokens }
      : undefined;
  return { tokens: last.tokens, target, ...(span ? { span } : {}), foldable, summarizes };
}

import type { ResolvedOptions } from '../budget/options.ts';
import type { Notice } from '../contracts/prepared.ts';
import type { SessionState } from '../contracts/session-state.ts';
import { type Stage, stageNameOf } from '../contracts/stage.ts';
import { continueLadder, type LadderInput, type LadderOutput, runLadder } from '../ladder/ladder.ts';
import { eligibleRuns, MIN_SPAN_TOKENS } from '../ladder/stages/summarize.ts';
import { buildGroups, type PinPolicy } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';
import { describeError } from '../util/errors.ts';
import { type CompactionRequest, planCompaction } from './controller.ts';

const SUMMARIZE = 'summarize';

/** A requested ladder's output, with what became of the agent's instruction. */
export interface RequestedLadderOutput extends LadderOutput {
  /** The summarizer failed at least once in this run. */
  summaryFailed: boolean;
  /** The agent's checkpoint stands for a span no summary could be written for. */
  checkpointUsed: boolean;
  /** The request carried the agent's instruction. */
  instructed: boolean;
}

/**
 * The ladder for a compaction the agent asked for with an instruction: the summarize stages
 * first, down to 0 (every older turn the stage may take), so the instruction shapes what
 * replaces them even when folding alone would reach the target; then the usual ladder from
 * there while still above target. When no summary can be written (the summarizer fails or
 * times out), the `checkpoint` the agent saved with the request replaces the span instead:
 * text it wrote to its own instruction. Without an instruction, or with no summarize stage
 * configured, it is the usual ladder. Decisions of the two runs apply in order, like stages.
 * `request`: the stored request (none for a probe's COMPRESS, whose summary has its own instruction).
 */
export async function runRequestedLadder(
  input: LadderInput & { request: CompactionRequest | undefined },
): Promise<RequestedLadderOutput> {
  const { stages, request } = input;
  const instructed = request?.instruction !== undefined;
  const checkpoint = request?.checkpoint;
  let summaryFailed = false;
  let checkpointUsed = false;
  const emit: LadderInput['emit'] = (event) => {
    if (event.type === 'summarizer-failed') summaryFailed = true;
    input.emit(event);
  };
  const summarizers = stages.filter((stage) => stageNameOf(stage) === SUMMARIZE);
  if (!instructed || summarizers.length === 0) {
    const out = await runLadder({ ...input, stages, emit });
    return { ...out, summaryFailed, checkpointUsed, instructed };
  }
  const summarize: LadderInput['summarize'] = async (entries, prior) => {
    try {
      return await input.summarize(entries, prior);
    } catch (error) {
      // Once: a second span would repeat the same text.
      if (!checkpoint || checkpointUsed) throw error;
      checkpointUsed = true;
      emit({ type: 'summarizer-failed', stage: SUMMARIZE, error: describeError(error) });
      return `No summary could be written (${describeError(error)}); the checkpoint the agent saved when it asked for this compaction stands for these messages:\n${checkpoint}`;
    }
  };
  const first = await runLadder({ ...input, stages: summarizers, target: 0, summarize, emit });
  const rest = await continueLadder({ ...input, emit }, first);
  return {
    ...rest,
    summaryFailed,
    checkpointUsed,
    instructed,
  };
}

/**
 * Ends the eviction notice of an instructed compaction with what became of the instruction:
 * which span the summary following it (or the agent's checkpoint) replaced, or that neither
 * could be and why.
 */
export function tellInstructionOutcome(notices: Notice[], result: RequestedLadderOutput): void {
  const eviction = notices.find((n) => n.type === 'eviction');
  if (!eviction || !result.instructed) return;
  const summarized = result.spans.filter((span) => span.stage === SUMMARIZE);
  const ranges = summarized
    .map((s) => (s.from === s.to ? `seq ${s.from}` : `seq ${s.from}-${s.to}`))
    .join(', ');
  const line =
    summarized.length === 0
      ? result.summaryFailed
        ? 'Your compact instruction could not be followed: the summarizer failed, so no summary was written; your notes hold what you saved.'
        : 'Your compact instruction could not be followed: no older turns could be summarized.'
      : result.checkpointUsed
        ? `No summary could be written (the summarizer failed): your checkpoint stands for ${ranges}.`
        : `Your compact instruction was followed: the summary of ${ranges} is written to it.`;
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

/** The stored form of a compaction the agent asked for: the checkpoint matters only with an instruction. */
export function compactionRequest(instruction?: string, checkpoint?: string): CompactionRequest {
  if (instruction === undefined) return {};
  return checkpoint ? { instruction, checkpoint } : { instruction };
}

/**
 * The stored request (the agent's compact tool, an overflow's retry), taken once. A prepare
 * that is not an overflow's retry comes after a call that went through (or on a new turn):
 * the next overflow is a first one again, whether or not the provider reported usage.
 * `changed`: the state changed (the caller persists).
 */
export function takePendingRequest(state: SessionState): {
  request: CompactionRequest | undefined;
  changed: boolean;
} {
  let changed = false;
  if (state.pendingCompaction?.tighten === undefined && state.overflowStreak !== 0) {
    state.overflowStreak = 0;
    changed = true;
  }
  const request = state.pendingCompaction;
  if (request) {
    delete state.pendingCompaction;
    changed = true;
  }
  return { request, changed };
}

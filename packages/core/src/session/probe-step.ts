import type { Engine } from '../budget/engine.ts';
import type { BatonEventBody } from '../contracts/events.ts';
import type { HostModel, ProbeDecision, ProbeJudge } from '../contracts/host-model.ts';
import type { ProbeSchedule, SessionState } from '../contracts/session-state.ts';
import type { Summarizer } from '../contracts/summarizer.ts';
import { backstopReached, type CompactionRequest } from '../controller/controller.ts';
import type { LadderOutput } from '../ladder/ladder.ts';
import { probeSkipReason, type ResolvedSelfCompact, runProbe } from '../probes/self-compaction.ts';
import { type BoundedSummaryDeps, boundedSummarize } from '../summarizers/bounded.ts';
import { continuationSummarizer } from '../summarizers/continuation.ts';
import type { Entry } from '../transcript/transcript.ts';

/** The session's probe schedule (created on first use; persisted with the session state). */
export function probeScheduleOf(state: SessionState): ProbeSchedule {
  state.probe ??= { steps: 0, compactions: 0 };
  return state.probe;
}

/**
 * With probes on and the host's model at hand, summaries are model-backed, for the rubric's
 * kind of work. One summarizer and memo per completion function, shared by the engine's
 * sessions.
 */
export function continuationFor(
  engine: Engine,
  model: HostModel | undefined,
): { summarizer: Summarizer; memo: Map<string, string> } | undefined {
  const config = engine.options.selfCompact;
  const complete = config?.complete ?? model?.complete;
  if (!config || !complete || !config.modelSummaries) return undefined;
  let cached = engine.continuations.get(complete);
  if (!cached) {
    cached = { summarizer: continuationSummarizer(complete, config.rubric), memo: new Map() };
    engine.continuations.set(complete, cached);
  }
  return cached;
}

const NO_JUDGE_REASON =
  'selfCompact is on but nothing can answer a probe: pass selfCompact.judge, or give the adapter a model object it can call (not a model id string)';

/** Stands in for a judge while checking whether a probe would otherwise be due; never called. */
const unavailableJudge: ProbeJudge = async () => {
  throw new Error('unreachable');
};

/** Characters of one criterion's evidence an event carries (the model may quote a whole tool result). */
export const PROBE_EVIDENCE_MAX_CHARS = 200;

function boundedEvidence(evidence: string): string {
  return evidence.length <= PROBE_EVIDENCE_MAX_CHARS
    ? evidence
    : `${evidence.slice(0, PROBE_EVIDENCE_MAX_CHARS - 1)}…`;
}

/**
 * Runs a probe when the schedule and the context allow one, and reports it as a
 * `probe-decided` event; its decision, or undefined when none ran.
 */
export async function probeIfDue(
  engine: Engine,
  config: ResolvedSelfCompact,
  schedule: ProbeSchedule,
  context: { tokens: number; entries: readonly Entry[]; system: string; model: HostModel | undefined },
  emit: (event: BatonEventBody) => void,
): Promise<ProbeDecision | undefined> {
  const { tokens, entries, system, model } = context;
  const judge = config.judge ?? model?.judge;
  const skip = probeSkipReason(config, schedule, tokens, entries, judge ?? unavailableJudge);
  if (skip !== undefined) return undefined;
  if (!judge) {
    // Every condition for a probe holds but the judge: say so once instead of never probing in silence.
    if (!schedule.unavailableReported) {
      schedule.unavailableReported = true;
      emit({ type: 'probe-unavailable', step: schedule.steps, reason: NO_JUDGE_REASON });
    }
    return undefined;
  }
  schedule.lastProbeStep = schedule.steps;
  const { counter } = engine;
  const result = await runProbe(
    config,
    judge as ProbeJudge,
    { entries, system },
    (prompt) => tokens + counter.text(prompt),
  );
  emit({
    type: 'probe-decided',
    rubric: config.rubric.id,
    step: schedule.steps,
    tokens,
    decision: result.decision,
    ...(result.modelDecision
      ? { modelDecision: result.modelDecision, agreed: result.modelDecision === result.decision }
      : {}),
    criteria: result.answers.map((a) => ({
      id: a.id,
      answer: a.answer ? 'Y' : 'N',
      evidence: boundedEvidence(a.evidence),
    })),
    costTokens: result.costTokens,
    ...(result.error ? { error: result.error } : {}),
  });
  return result.decision;
}

/**
 * The ladder's `summarize`: a span condensed under the input bound, memoized, under the
 * deadline, by the host model's continuation summarizer when probes are on, else the configured one.
 */
export function spanSummarizer(
  engine: Engine,
  model: HostModel | undefined,
  countText: (text: string) => number,
  instruction: string | undefined,
): (entries: Entry[], priorSummary?: string) => Promise<string> {
  const { options, counter } = engine;
  const continuation = continuationFor(engine, model);
  const deps: BoundedSummaryDeps = {
    summarizer: continuation?.summarizer ?? options.summarizer,
    countEntry: (entry) => counter.count(entry),
    countText,
    maxInputTokens: options.maxSummaryInputTokens,
    maxTokens: options.maxSummaryTokens,
    timeoutMs: options.summaryTimeoutMs,
    memo: continuation?.memo ?? engine.summaryMemo,
  };
  return (entries, priorSummary) => boundedSummarize(deps, entries, instruction, priorSummary);
}

/** After a compaction with probes on: the schedule moves on, and a `self-compacted` event says what it did. */
export function recordSelfCompaction(
  engine: Engine,
  schedule: ProbeSchedule,
  compaction: { early: boolean; before: number; result: LadderOutput },
  emit: (event: BatonEventBody) => void,
): void {
  const { early, before, result } = compaction;
  schedule.lastCompactionStep = schedule.steps;
  if (early) schedule.compactions++;
  const summaries = result.entries.filter((e) => e.meta?.synthetic === 'summary');
  emit({
    type: 'self-compacted',
    step: schedule.steps,
    early,
    tokensBefore: before,
    tokensAfter: result.tokens,
    summaryTokens: summaries.reduce((sum, e) => sum + engine.counter.count(e), 0),
    messagesCompressed: result.spans.reduce((sum, span) => sum + span.entries.length, 0),
  });
}

/** Counts this model call in the probe schedule, kept (and persisted) only with probes on. */
export function countProbeStep(engine: Engine, state: SessionState): ProbeSchedule | undefined {
  if (!engine.options.selfCompact) return undefined;
  const schedule = probeScheduleOf(state);
  schedule.steps++;
  return schedule;
}

/**
 * Below the backstop, a probe may choose this moment: the model judges its own trajectory.
 * Its COMPRESS is a request with the rubric's summary instruction.
 */
export async function probeRequest(
  engine: Engine,
  schedule: ProbeSchedule | undefined,
  context: { tokens: number; entries: readonly Entry[]; system: string; model: HostModel | undefined },
  emit: (event: BatonEventBody) => void,
): Promise<CompactionRequest | undefined> {
  const { selfCompact } = engine.options;
  if (!selfCompact || !schedule || backstopReached(context.tokens, engine.options)) return undefined;
  if ((await probeIfDue(engine, selfCompact, schedule, context, emit)) !== 'COMPRESS') return undefined;
  return { instruction: selfCompact.rubric.summaryInstruction };
}

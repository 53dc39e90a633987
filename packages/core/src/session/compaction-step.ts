import { addedNoticeTokens, compactionNotices, renderNotices, warningNotice } from '../agent/notices.ts';
import type { PromptMeasure } from '../budget/budget.ts';
import type { Engine } from '../budget/engine.ts';
import type { ResolvedOptions } from '../budget/options.ts';
import type { BatonEventBody } from '../contracts/events.ts';
import type { HostModel } from '../contracts/host-model.ts';
import type { Notice } from '../contracts/prepared.ts';
import type { ProbeSchedule } from '../contracts/session-state.ts';
import { type CompactionPlan, type CompactionRequest, minGain } from '../controller/controller.ts';
import { floorToTell, recordFloor } from '../controller/floor.ts';
import { runRequestedLadder, tellInstructionOutcome } from '../controller/requested-compaction.ts';
import { settleOverBudget } from '../controller/settle-over-budget.ts';
import { shrinkFloor, steadyOptions } from '../controller/steady-state.ts';
import type { LadderInput } from '../ladder/ladder.ts';
import { bindToContent } from '../ledger/ledger.ts';
import type { TokenCounter } from '../tokens/token-counter.ts';
import type { PinPolicy } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';
import { recordSelfCompaction, spanSummarizer } from './probe-step.ts';
import type { SessionRecord } from './session-record.ts';

/** One prepare's compaction, as the controller planned it. */
export interface CompactionStep {
  /** The call's engine, its counter calibrated for this session. */
  engine: Engine;
  record: SessionRecord;
  measure: PromptMeasure;
  model: HostModel | undefined;
  /** The repaired host entries (what new decisions bind to) and the projection the ledger gave. */
  entries: readonly Entry[];
  projection: Entry[];
  /** The stored request (agent, overflow) or a probe's; `early` when a probe's COMPRESS chose the moment. */
  request: CompactionRequest | undefined;
  early: boolean;
  plan: CompactionPlan;
  /** Prompt tokens before, and the part outside the conversation (system prompt, tools, notes now). */
  before: number;
  overhead: number;
  pinPolicy: PinPolicy;
  schedule: ProbeSchedule | undefined;
  /** The latest user message's key: the turn a floor holds for. */
  turn: string | undefined;
  /** The session's latest options and calibrated counter, read when the floor is measured. */
  current: () => { options: ResolvedOptions; counter: TokenCounter };
  /** This step's notices: the compaction's and the floor's are added. */
  notices: Notice[];
  emit: (event: BatonEventBody) => void;
}

/**
 * The ladder, budget-gated; its evictions archived before the ledger keeps them (the record's
 * commit). A backstop compaction must repay the cache write it causes; one that cannot reach
 * its target tells the floor once. Returns the new projection when a compaction was committed.
 */
export async function compactionStep(step: CompactionStep): Promise<Entry[] | undefined> {
  const {
    engine,
    record,
    measure,
    request,
    early,
    plan,
    before,
    overhead,
    pinPolicy,
    schedule,
    notices,
    emit,
  } = step;
  const { options, counter } = engine;
  const budget = options.inputBudget;
  const ladder: LadderInput = {
    entries: step.projection,
    // A probe's COMPRESS condenses the whole closed unit: the summarize stage alone.
    stages: early ? engine.summarizeStages : engine.stages,
    overhead,
    target: plan.target,
    budget,
    truncateLimit: plan.truncateLimit,
    instruction: request?.instruction,
    options: plan.timedByRent ? steadyOptions(options) : options,
    pinPolicy,
    count: (entry) => counter.count(entry),
    summarize: spanSummarizer(engine, step.model, (text) => measure.text(text), request?.instruction),
    noticeTokens: (spans) =>
      spans.length === 0 ? 0 : measure.text(renderNotices(compactionNotices(spans, before, budget))) + 8,
    emit,
  };
  // The agent's instruction shapes a summary even when folding alone would reach the target.
  const requested = await runRequestedLadder({ ...ladder, request: early ? undefined : request });
  // A backstop compaction that would leave a floor the prompt regrows from in a few calls
  // shrinks what holds it first (the steady state of a long run).
  const shrunk =
    request === undefined && !early ? { ...requested, ...(await shrinkFloor(ladder, requested)) } : requested;
  // Still over the budget: the backstop's ladder again until nothing more gives way.
  const result = {
    ...shrunk,
    ...(await settleOverBudget({ ...ladder, stages: engine.stages, options }, shrunk)),
  };
  bindToContent(result.decisions, step.entries);
  // The backstop's own compactions must repay the cache write they cause. Requested ones
  // (the agent chose the moment) are not gated, nor a prompt that would not fit the budget
  // uncompacted with the notices this call may add (the floor's, a warning).
  const floorTold =
    request === undefined
      ? (() => {
          const current = step.current();
          const count = (entry: Entry) => current.counter.count(entry);
          return floorToTell(
            record.state,
            result,
            { target: plan.target, overhead, pinPolicy },
            current.options,
            count,
          );
        })()
      : undefined;
  const mayAdd = [warningNotice(before, budget, options.compactAt * budget)];
  if (floorTold) mayAdd.unshift({ type: floorTold.type, text: floorTold.text, facts: floorTold.facts });
  const noticeRoom = addedNoticeTokens((text) => measure.text(text), notices, mayAdd);
  const gated = request === undefined && before + noticeRoom <= budget;
  const repays = before - result.tokens >= minGain(options);
  let projection: Entry[] | undefined;
  const skipped = !(early && result.summaryFailed) && gated && !repays;
  if (early && result.summaryFailed) {
    // An optional compaction whose summary failed is not worth a half-done context change.
    emit({
      type: 'self-compaction-abandoned',
      step: schedule?.steps ?? 0,
      reason: 'the continuation summary failed',
    });
  } else if (skipped) {
    emit({
      type: 'compaction-skipped',
      tokensBefore: before,
      floor: result.tokens,
      minGain: minGain(options),
    });
  } else if (result.decisions.length > 0 && (await record.commit(result.decisions, result.spans, emit))) {
    projection = result.entries;
    measure.setProjection(projection);
    notices.push(...compactionNotices(result.spans, before - result.tokens, budget));
    tellInstructionOutcome(notices, result);
    if (schedule) recordSelfCompaction(engine, schedule, { early, before, result }, emit);
  }
  if (request === undefined) {
    // A skipped compaction leaves a floor even below target: the prompt must grow a gain past
    // what the ladder reached before it runs again (and calls the summarizer again).
    if (recordFloor(record.state, result.tokens, skipped ? 0 : plan.target, step.turn)) record.touch();
    if (floorTold) {
      notices.push({ type: floorTold.type, text: floorTold.text, facts: floorTold.facts });
      emit({
        type: 'compaction-floor',
        tokens: result.tokens,
        target: plan.target,
        holders: floorTold.holders,
      });
    }
  }
  return projection;
}

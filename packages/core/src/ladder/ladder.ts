import type { ResolvedOptions } from '../budget/options.ts';
import type { BatonEventBody } from '../contracts/events.ts';
import type { EvictedSpan } from '../contracts/prepared.ts';
import { isBuiltInStage, type Stage, type StageContext, stageNameOf } from '../contracts/stage.ts';
import { detachedCopy } from '../contracts/store.ts';
import { checkDecisions } from '../ledger/decision-shape.ts';
import { applyLedger, type Decision } from '../ledger/ledger.ts';
import { buildGroups, type PinPolicy } from '../transcript/groups.ts';
import { stageViolation } from '../transcript/projection-check.ts';
import type { Entry } from '../transcript/transcript.ts';
import { describeError } from '../util/errors.ts';
import { withTimeout } from '../util/timeout.ts';
import { degradesFirst, isDestructive } from './ladder-order.ts';

export interface LadderInput {
  entries: Entry[];
  stages: readonly Stage[];
  /** Tokens of the request outside the entries (system, notes, tools, reply priming), calibrated. */
  overhead: number;
  target: number;
  budget: number;
  truncateLimit: number;
  instruction: string | undefined;
  options: ResolvedOptions;
  pinPolicy: PinPolicy;
  count(entry: Entry): number;
  summarize: StageContext['summarize'];
  /** Tokens of the notices that will describe these evictions. */
  noticeTokens(spans: readonly EvictedSpan[]): number;
  emit(event: BatonEventBody): void;
  /**
   * The span behind each placeholder, digest or summary an earlier run of the same compaction
   * made, by its key: a decision that takes one in absorbs that span (`EvictedSpan.absorbed`).
   */
  made?: ReadonlyMap<string, EvictedSpan>;
}

export interface LadderOutput {
  entries: Entry[];
  tokens: number;
  decisions: Decision[];
  /** What each accepted decision evicted (host entries only; synthetic ones stand for entries already archived). */
  spans: EvictedSpan[];
  /** The span behind each entry the accepted decisions put in the projection, by key (see `LadderInput.made`). */
  made: ReadonlyMap<string, EvictedSpan>;
}

/**
 * Every entry of the projection a decision takes out: host entries (which it evicts) and Baton's
 * own (summaries, digests, markers, folded results, from an earlier compaction or an earlier
 * stage of this one), which stand for host entries already archived, so the event counts them
 * apart (a summary over digests evicts no host entry).
 */
function takenBy(decision: Decision, byKey: ReadonlyMap<string, Entry>): Entry[] {
  const keys = decision.kind === 'fold' ? [decision.key] : decision.keys;
  const out: Entry[] = [];
  for (const key of keys) {
    const entry = byKey.get(key);
    if (entry) out.push(entry);
  }
  return out;
}

/** What a user's stage sees: the same context over a copy of the projection. */
function userStageContext(ctx: StageContext, pinPolicy: PinPolicy): StageContext {
  const entries = detachedCopy(ctx.entries as Entry[]);
  return { ...ctx, entries, groups: buildGroups(entries, pinPolicy) };
}

/**
 * Runs the stages in order while the request is above target. Between stages the projection
 * is rebuilt from the new decisions and re-counted; a stage that throws or breaks the
 * contract is skipped with an event, never trusted.
 */
export async function runLadder(input: LadderInput): Promise<LadderOutput> {
  let entries = input.entries;
  const total = (list: readonly Entry[]) => list.reduce((sum, e) => sum + input.count(e), input.overhead);
  const spans: EvictedSpan[] = [];
  // The span behind each placeholder, digest or summary this compaction made (its earlier runs' too).
  const made = new Map(input.made);
  // A later pass over what an earlier one reached starts with that pass's notice lines counted
  // (shrinkFloor's second run): measured without them, every stage of it looked like a loss.
  let tokens = total(entries) + input.noticeTokens([]);
  const decisions: Decision[] = [];

  /** Runs one stage; `only` keeps the decisions on the entries it accepts (the early degrade's results). */
  const runStage = async (stage: Stage, only?: (entry: Entry) => boolean): Promise<void> => {
    const name = stageNameOf(stage);
    const groups = buildGroups(entries, input.pinPolicy);
    const ctx: StageContext = {
      entries,
      groups,
      tokens,
      target: input.target,
      budget: input.budget,
      truncateLimit: input.truncateLimit,
      instruction: input.instruction,
      options: input.options,
      count: input.count,
      summarize: input.summarize,
      emit: input.emit,
    };
    let returned: unknown;
    try {
      // A stage is user code (or waits on it): it gets a deadline like every other such call.
      // A stage of the user's reads a copy: one that edits entries must not rewrite the host's.
      const seen = isBuiltInStage(stage) ? ctx : userStageContext(ctx, input.pinPolicy);
      returned = (await withTimeout(() => stage(seen), input.options.stageTimeoutMs, `stage ${name}`))
        .decisions;
    } catch (error) {
      input.emit({ type: 'stage-failed', stage: name, error: describeError(error) });
      return;
    }
    // Checked before anything applies it: a custom stage is user code.
    const checked = checkDecisions(returned);
    if ('problem' in checked) {
      input.emit({
        type: 'stage-failed',
        stage: name,
        error: `[baton] [ladder] rejected: ${checked.problem}`,
      });
      return;
    }
    const proposed = only
      ? checked.decisions.filter((decision) => {
          if (decision.kind !== 'fold') return false;
          const entry = entries.find((e) => e.key === decision.key);
          return entry !== undefined && only(entry);
        })
      : checked.decisions;
    if (proposed.length === 0) return;
    const next = applyLedger(entries, proposed, { wholeGroups: false });
    const violation = stageViolation(groups, next, { degrades: stage.degrades === true });
    if (violation) {
      input.emit({ type: 'stage-failed', stage: name, error: `[baton] [ladder] rejected: ${violation}` });
      return;
    }
    const byKey = new Map(entries.map((e) => [e.key, e]));
    const stageSpans: EvictedSpan[] = [];
    const decisionSpans: Array<[Decision, EvictedSpan]> = [];
    let syntheticAffected = 0;
    for (const decision of proposed) {
      const taken = takenBy(decision, byKey);
      const evicted = taken.filter((entry) => entry.meta?.synthetic === undefined);
      syntheticAffected += taken.length - evicted.length;
      // A decision that takes in only Baton's own entries evicts no host entry and gets no span:
      // a summary of the digests an earlier stage of this compaction just wrote leaves their
      // line standing, its recall range right and its stage no longer. A span of its own
      // (absorbing them) measured 0.6-2.7% dearer at 32k on 2,000 and 4,000 messages
      // (2026-12-02), through the notice sizes the ladder and the gain check weigh.
      if (evicted.length === 0) continue;
      const span: EvictedSpan = {
        stage: name,
        from: evicted[0]!.seq,
        to: evicted.at(-1)!.seq,
        entries: evicted,
      };
      // A placeholder or digest an earlier stage of this compaction left, taken in again: what
      // it stood for is no longer where that stage's notice line would say.
      const absorbed = taken.flatMap((entry) => {
        const earlier = entry.meta?.synthetic === undefined ? undefined : made.get(entry.key);
        return earlier ? [...earlier.entries, ...(earlier.absorbed ?? [])] : [];
      });
      if (absorbed.length > 0) span.absorbed = absorbed;
      stageSpans.push(span);
      decisionSpans.push([decision, span]);
    }
    // The notice telling the agent what went is part of the request too.
    const nextTokens = total(next) + input.noticeTokens([...spans, ...stageSpans]);
    if (nextTokens >= tokens) {
      // Placeholders, digests and notice lines can cost more than what they replace.
      input.emit({
        type: 'stage-skipped',
        stage: name,
        reason: `no net gain (${tokens} -> ${nextTokens} tokens)`,
      });
      return;
    }
    let affected = 0;
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    stageSpans.forEach((span) => {
      affected += span.entries.length;
      from = Math.min(from, span.from);
      to = Math.max(to, span.to);
    });
    for (const [decision, span] of decisionSpans) {
      decision.span = [span.from, span.to];
      for (const key of madeKeys(decision)) made.set(key, span);
    }
    spans.push(...stageSpans);
    const tokensBefore = tokens;
    entries = next;
    tokens = nextTokens;
    decisions.push(...proposed);
    input.emit({
      type: 'stage-completed',
      stage: name,
      entriesAffected: affected,
      syntheticAffected,
      tokensBefore,
      tokensAfter: tokens,
      ...(affected > 0 ? { seqRange: [from, to] as [number, number] } : {}),
    });
  };

  const order = [...input.stages];
  for (const [i, stage] of order.entries()) {
    if (tokens <= input.target) break;
    // A fresh result too large for the window is previewed before anything older is destroyed:
    // truncation never drops what a preview would have made room for. Only the results move
    // ahead; previewing the protected requests stays the residual path.
    const degrader = order.slice(i + 1).find((later) => later.degrades === true);
    if (
      degrader &&
      isDestructive(stage) &&
      degradesFirst(buildGroups(entries, input.pinPolicy), tokens, input.budget, input.count)
    ) {
      await runStage(degrader, (entry) => entry.role === 'tool');
      if (tokens <= input.target) break;
    }
    await runStage(stage);
  }
  return { entries, tokens, decisions, spans, made };
}

/** The keys of the entries a decision puts in the projection: a folded result keeps its own. */
function madeKeys(decision: Decision): string[] {
  return decision.kind === 'fold' ? [decision.key] : decision.entries.map((entry) => entry.key);
}

/**
 * Runs the ladder again over what an earlier run reached (`changes` replacing some of its
 * input): the earlier run's notice lines counted from the start, its decisions applied first,
 * like stages in order.
 */
export async function continueLadder(
  input: LadderInput,
  first: LadderOutput,
  changes: Partial<LadderInput> = {},
): Promise<LadderOutput> {
  const next = await runLadder({
    ...input,
    ...changes,
    entries: first.entries,
    noticeTokens: (spans) => input.noticeTokens([...first.spans, ...spans]),
    made: first.made,
  });
  return {
    entries: next.entries,
    tokens: next.tokens,
    decisions: [...first.decisions, ...next.decisions],
    spans: [...first.spans, ...next.spans],
    made: next.made,
  };
}

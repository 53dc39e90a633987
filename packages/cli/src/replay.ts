import {
  type BatonEvent,
  createBaton,
  type Entry,
  type ProbeJudge,
  RUBRICS,
  type RubricName,
  type Store,
  TokenCounter,
} from '@baton/core';

export interface ReplayOptions {
  contextWindow?: number;
  model?: string;
  pinned: string[];
  selfCompact?: RubricName;
  store?: Store;
  /** Steps between compactions of the fixed-interval baseline. */
  interval: number;
}

/** Context tokens sent at one model call, under each policy. */
export interface StepRecord {
  step: number;
  /** Index of the assistant message this call produced, in the transcript. */
  at: number;
  baton: number;
  none: number;
  interval: number;
  deleteOldest: number;
  outcome: 'ok' | 'compacted' | 'unfit';
  events: BatonEvent[];
  notices: string[];
}

export interface PolicySummary {
  name: string;
  compactions: number;
  peak: number;
  overBudget: number;
  billed: number;
  /** Steps where the opening request was not in the context. */
  openingLost: number;
}

export interface ReplayResult {
  steps: StepRecord[];
  budget: number;
  thresholds: { warn: number; compact: number; target: number };
  policies: PolicySummary[];
  probes: number;
  archived: number;
}

/** Each model call of a recorded conversation: before every assistant message, and after the last message. */
export function modelCalls(entries: readonly Entry[]): number[] {
  const points: number[] = [];
  entries.forEach((entry, i) => {
    if (entry.role === 'assistant' && i > 0) points.push(i);
  });
  return points;
}

/**
 * Without a model, probes are answered by a fixed heuristic: a closed unit of at least 8 tool
 * results since the last summary whose newest result is not an error; never stuck. A live
 * run asks the model itself.
 */
export function heuristicJudge(rubric: RubricName): ProbeJudge {
  return async ({ entries }) => {
    const lastSummary = entries.map((e) => e.meta?.synthetic === 'summary').lastIndexOf(true);
    const results = entries.slice(Math.max(0, lastSummary)).filter((e) => e.role === 'tool');
    const newest = results.at(-1)?.parts.find((p) => p.type === 'tool-result') as
      | { isError?: boolean }
      | undefined;
    const ready = results.length >= 8 && newest?.isError !== true;
    const criteria = RUBRICS[rubric].criteria.map((c) => ({
      id: c.id,
      answer: (c.id === 'STUCK' ? false : ready) ? ('Y' as const) : ('N' as const),
      evidence: `${results.length} tool results since the last summary`,
    }));
    const answers = Object.fromEntries(criteria.map((c) => [c.id, c.answer === 'Y']));
    return { output: { criteria, decision: RUBRICS[rubric].decide(answers) } };
  };
}

/** The newest messages that fit the budget, oldest dropped first: what a sliding window sends. */
function deleteOldest(
  counts: readonly number[],
  end: number,
  budget: number,
  overhead: number,
): { tokens: number; first: number } {
  let tokens = overhead;
  let first = end;
  while (first > 0 && tokens + (counts[first - 1] as number) <= budget) {
    first--;
    tokens += counts[first] as number;
  }
  return { tokens, first };
}

/**
 * Replays a transcript as an agent loop, one `prepare` per assistant message, under Baton and
 * three baselines measured on the same counts: no compaction, compaction every `interval`
 * steps, and delete-oldest (a sliding window).
 */
export async function replay(
  entries: readonly Entry[],
  options: ReplayOptions,
  onStep?: (record: StepRecord, total: number) => void,
): Promise<ReplayResult> {
  const events: BatonEvent[] = [];
  const common = {
    ...(options.model ? { model: options.model } : {}),
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    pinnedTools: options.pinned,
  };
  const baton = createBaton({
    ...common,
    ...(options.store ? { store: options.store } : {}),
    ...(options.selfCompact
      ? { selfCompact: { rubric: options.selfCompact, judge: heuristicJudge(options.selfCompact) } }
      : {}),
    onEvent: (e) => events.push(e),
  });
  const fixed = createBaton({ ...common, compactAt: 1, truncateAt: 1, warnAt: 1, targetAt: 0.99 });
  const { inputBudget: budget, warnAt, compactAt, targetAt } = baton.options;
  const session = baton.session('replay');
  const interval = fixed.session('interval');
  const counter = new TokenCounter(baton.options.tokenizer, baton.options.opaqueTokens);
  const counts = entries.map((e) => counter.raw(e));
  const overhead = 3; // the reply priming every request carries
  const opening = entries.find((e) => e.role === 'user');

  const calls = modelCalls(entries);
  const steps: StepRecord[] = [];
  const summaries: Record<string, PolicySummary> = {};
  for (const name of ['Baton', 'no compaction', `every ${options.interval} steps`, 'delete oldest']) {
    summaries[name] = { name, compactions: 0, peak: 0, overBudget: 0, billed: 0, openingLost: 0 };
  }
  let none = overhead;
  let counted = 0;
  for (const [index, at] of calls.entries()) {
    while (counted < at) none += counts[counted++] as number;
    const history = entries.slice(0, at);
    const seen = events.length;
    const prepared = await session.prepare({ entries: history });
    if ((index + 1) % options.interval === 0) interval.requestCompaction();
    const fixedRun = await interval.prepare({ entries: history });
    const window = deleteOldest(counts, at, budget, overhead);
    const record: StepRecord = {
      step: index + 1,
      at,
      baton: prepared.tokens.after,
      none,
      interval: fixedRun.tokens.after,
      deleteOldest: window.tokens,
      outcome: prepared.outcome,
      events: events.slice(seen),
      notices: prepared.notices.map((n) => n.type),
    };
    steps.push(record);
    const keepsOpening = (list: readonly Entry[]) => !opening || list.some((e) => e.key === opening.key);
    const tally = (name: string, tokens: number, compacted: boolean, opened: boolean) => {
      const s = summaries[name] as PolicySummary;
      s.billed += tokens;
      s.peak = Math.max(s.peak, tokens);
      if (tokens > budget) s.overBudget++;
      if (compacted) s.compactions++;
      if (!opened) s.openingLost++;
    };
    tally('Baton', record.baton, prepared.outcome === 'compacted', keepsOpening(prepared.entries));
    tally('no compaction', none, false, true);
    tally(
      `every ${options.interval} steps`,
      record.interval,
      fixedRun.outcome === 'compacted',
      keepsOpening(fixedRun.entries),
    );
    tally('delete oldest', window.tokens, false, !opening || entries.indexOf(opening) >= window.first);
    onStep?.(record, calls.length);
  }
  const archived = (await session.archive.range(0, Number.MAX_SAFE_INTEGER)).length;
  return {
    steps,
    budget,
    thresholds: { warn: warnAt * budget, compact: compactAt * budget, target: targetAt * budget },
    policies: Object.values(summaries),
    probes: events.filter((e) => e.type === 'probe-decided').length,
    archived,
  };
}

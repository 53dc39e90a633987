import {
  type BatonEvent,
  type CacheRules,
  createBaton,
  type Entry,
  type ModelPricing,
  type ProbeRequest,
  type RubricName,
  resolveCallBudget,
  type Session,
  type Store,
  TokenCounter,
} from '@baton/core';
import { entryText, seededRandom } from '@baton/core/internals';
import {
  billingRules,
  CALL_INTERVAL_MS,
  POLICY_KEYS,
  type PolicyBilling,
  type PolicyCosts,
  type PolicyKey,
  policyBilling,
} from './billing.ts';
import { batonPromptBlocks, type SentPrompt } from './breakpoints.ts';
import { deleteOldest, modelCalls } from './model-calls.ts';
import { heuristicJudge, recordingJudge } from './offline-judge.ts';
import { promptHolds, type RetentionTotals, referenceRetention } from './retention.ts';
import type { Settings } from './settings.ts';

export { modelCalls } from './model-calls.ts';

export interface ReplayOptions {
  contextWindow?: number;
  model?: string;
  /** Tools whose results are never folded, summarized or dropped. Default none. */
  pinned?: string[];
  selfCompact?: RubricName;
  /** Where Baton's session lives (default memory); it must not hold a replay already. */
  store?: Store;
  /** Steps between compactions of the fixed-interval baseline. Default 10. */
  interval?: number;
  /**
   * Baton's thresholds and what it keeps (`--compact-at`, `--keep-recent`, ...): core's options,
   * for Baton's run only. The baselines keep core's defaults, so they stay the same yardstick
   * whatever Baton is set to. Default: core's defaults.
   */
  settings?: Settings;
  /**
   * Run the three baselines too (default true). A sweep over settings runs them once: they do
   * not depend on Baton's settings. Without them `policies` holds Baton's summary alone.
   */
  baselines?: boolean;
}

/** The session id a replay runs under, in its store. */
export const REPLAY_SESSION = 'replay';

/** Context tokens sent at one model call, under each policy. */
export interface StepRecord {
  step: number;
  /** Index of the assistant message this call produced, in the transcript. */
  at: number;
  baton: number;
  /** The baselines' (0 in a replay run with `baselines: false`). */
  none: number;
  interval: number;
  deleteOldest: number;
  /**
   * What this step's model calls cost under each policy, in input-token equivalents (cached
   * reads at 0.1x); Baton's includes the probes it ran at this step.
   */
  cost: Record<PolicyKey, number>;
  /**
   * Input tokens this step's calls sent under each policy, and how many were read from the
   * cache under the model's provider's rules with Baton's breakpoints (`ReplayResult.rules`).
   */
  billed: Record<PolicyKey, { inputTokens: number; cachedTokens: number }>;
  outcome: 'ok' | 'compacted' | 'unfit';
  events: BatonEvent[];
  notices: string[];
}

export interface PolicySummary extends PolicyCosts {
  key: PolicyKey;
  name: string;
  compactions: number;
  peak: number;
  overBudget: number;
  /**
   * Steps the policy ended as `unfit` (even the protected content could not fit): the adapter
   * ends the turn with a recoverable message and a checkpoint, so no call is made, billed or
   * counted over the budget.
   */
  unfit: number;
  billed: number;
  /** Steps where the opening request was not in the context. */
  openingLost: number;
  /**
   * Reference retention (`referenceRetention`): the identifiers the agent used that an earlier
   * tool result or user message showed first, how many the prompt this policy sent still
   * held, and how many were in it or one recall away (in the policy's archive: Baton's and
   * the fixed-interval baseline's; the other two keep none).
   */
  retention: RetentionTotals;
}

export interface ReplayResult {
  steps: StepRecord[];
  budget: number;
  thresholds: { warn: number; compact: number; target: number; truncate: number };
  policies: PolicySummary[];
  probes: number;
  archived: number;
  /** The model named, if any. */
  model?: string;
  /** The prices `usd` is billed at: the model's, from the registry; absent when it has none. */
  pricing?: ModelPricing;
  /** The caching rules the bill follows: the model's provider's (`billingRules`). */
  rules: Pick<CacheRules, 'kind' | 'provider' | 'description'>;
}

/**
 * Whether a session's archive holds an identifier, and how many entries it holds: each entry's
 * text searched on its own (no identifier rule matches across a line break, so this answers
 * what searching their joined text did), read from the store once, without one string of
 * the whole archive beside the copies the store hands out.
 */
async function archiveSearch(
  session: Session,
): Promise<{ holds: (identifier: string) => boolean; size: number }> {
  const texts = (await session.archive.range(0, Number.MAX_SAFE_INTEGER)).map((record) =>
    entryText(record.entry),
  );
  return { holds: (identifier) => texts.some((text) => text.includes(identifier)), size: texts.length };
}

/**
 * Replays a transcript as an agent loop, one `prepare` per assistant message, under Baton and
 * three baselines measured on the same counts: no compaction, compaction every `interval`
 * steps, and delete-oldest (a sliding window). Every policy's model calls are billed with
 * core's cost meter on the prompts it would send, its own cache per policy; Baton's probes
 * are billed as calls of their own.
 */
export async function replay(
  entries: readonly Entry[],
  options: ReplayOptions,
  onStep?: (record: StepRecord, total: number) => void,
): Promise<ReplayResult> {
  const events: BatonEvent[] = [];
  const probes: Array<{ request: ProbeRequest; output: unknown }> = [];
  const common = {
    ...(options.model ? { model: options.model } : {}),
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    pinnedTools: options.pinned ?? [],
  };
  // Seeded: the same transcript replays to the same numbers (checkpoint refs in notices would
  // otherwise move token counts from one run to the next). One sequence per engine, so Baton's
  // numbers do not depend on whether the baselines ran beside it.
  const seeded = () => seededRandom(0x5eed);
  const baton = createBaton({
    ...common,
    ...options.settings,
    random: seeded(),
    ...(options.store ? { store: options.store } : {}),
    ...(options.selfCompact
      ? {
          selfCompact: {
            rubric: options.selfCompact,
            judge: recordingJudge(heuristicJudge(options.selfCompact), probes),
          },
        }
      : {}),
    onEvent: (e) => events.push(e),
  });
  const fixed = createBaton({
    ...common,
    random: seeded(),
    compactAt: 1,
    truncateAt: 1,
    warnAt: 1,
    targetAt: 0.99,
  });
  const { warnAt, compactAt, targetAt, truncateAt, pricing } = baton.options;
  // A replay names its model or window (resolveCallBudget throws BatonModelError otherwise).
  const window = resolveCallBudget(baton.options, {});
  const budget = window.contextWindow - window.reserveOutput;
  const session = baton.session(REPLAY_SESSION);
  const every = options.interval ?? 10;
  const interval = fixed.session('interval');
  const counter = new TokenCounter(baton.options.tokenizer, baton.options.opaqueTokens);
  const counts = entries.map((e) => counter.raw(e));
  const overhead = 3; // the reply priming every request carries
  const opening = entries.find((e) => e.role === 'user');
  // The opening request can only be lost once it was said: an agent that speaks first (tau2's
  // does) has steps before any user message, and those are not charged.
  const openingAt = opening ? entries.indexOf(opening) : entries.length;

  const calls = modelCalls(entries);
  const steps: StepRecord[] = [];
  const names: Record<PolicyKey, string> = {
    baton: 'Baton',
    none: 'no compaction',
    interval: `every ${every} steps`,
    deleteOldest: 'delete oldest',
  };
  const rules = billingRules(options.model);
  const baselines = options.baselines !== false;
  const keys: readonly PolicyKey[] = baselines ? POLICY_KEYS : ['baton'];
  const summaries = {} as Record<PolicyKey, PolicySummary>;
  const billing = {} as Record<PolicyKey, PolicyBilling>;
  const retention = {} as Record<PolicyKey, ReturnType<typeof referenceRetention>>;
  for (const key of keys) {
    billing[key] = policyBilling(pricing, rules);
    retention[key] = referenceRetention(entries);
    summaries[key] = {
      key,
      name: names[key],
      compactions: 0,
      peak: 0,
      overBudget: 0,
      unfit: 0,
      billed: 0,
      openingLost: 0,
      retention: retention[key].totals,
      ...billing[key].costs(),
    };
  }
  let none = overhead;
  let counted = 0;
  for (const [index, at] of calls.entries()) {
    while (counted < at) none += counts[counted++] as number;
    const history = entries.slice(0, at);
    const seen = events.length;
    const probed = probes.length;
    const prepared = await session.prepare({ entries: history });
    if (baselines && (index + 1) % every === 0) interval.requestCompaction();
    const fixedRun = baselines ? await interval.prepare({ entries: history }) : undefined;
    const window = baselines ? deleteOldest(counts, at, budget, overhead) : undefined;

    // The reply this call produced is the transcript's, whatever the policy sent.
    const reply = counter.raw(entries[at] as Entry);
    // Calls a few seconds apart (a replay has no clock); a step's probes at its own time.
    const now = index * CALL_INTERVAL_MS;
    const cost = { baton: 0, none: 0, interval: 0, deleteOldest: 0 };
    const billed = {} as StepRecord['billed'];
    for (const key of POLICY_KEYS) billed[key] = { inputTokens: 0, cachedTokens: 0 };
    const bill = (key: PolicyKey, prompt: SentPrompt, output: number) => {
      const call = billing[key].bill(batonPromptBlocks(prompt, counter), output, now);
      cost[key] += call.cost;
      billed[key].inputTokens += call.billed.inputTokens;
      billed[key].cachedTokens += call.billed.cachedTokens;
    };
    // A probe is a call before this step's own: the context as Baton last sent it, then the rubric.
    for (const { request, output } of probes.slice(probed))
      bill('baton', { ...request, trailer: request.prompt }, counter.rawText(JSON.stringify(output)));
    // Each policy's prompt as sent: system prompt, projection and trailing notices where it has
    // them, with the breakpoints Baton places (billed with and without them).
    if (prepared.outcome !== 'unfit') bill('baton', prepared, reply);
    if (fixedRun && window) {
      bill('none', { entries: history }, reply);
      if (fixedRun.outcome !== 'unfit') bill('interval', fixedRun, reply);
      bill('deleteOldest', { entries: entries.slice(window.first, at) }, reply);
    }

    // What each policy's prompt held of what the agent went on to use. Recall is scored after
    // the loop, against the archives: a prompt lacks only what was archived before it was sent.
    // An unfit step sends nothing, so its prompt retains nothing.
    retention.baton.record(at, promptHolds(prepared), {
      overBudget: prepared.tokens.after > budget || prepared.outcome === 'unfit',
    });
    if (fixedRun && window) {
      // The whole history: it holds every identifier an earlier message showed.
      retention.none.record(at, () => true, { overBudget: none > budget });
      retention.interval.record(at, promptHolds(fixedRun), {
        overBudget: fixedRun.tokens.after > budget || fixedRun.outcome === 'unfit',
      });
      retention.deleteOldest.record(at, promptHolds({ entries: entries.slice(window.first, at) }), {
        overBudget: window.tokens > budget,
      });
    }

    const record: StepRecord = {
      step: index + 1,
      at,
      baton: prepared.tokens.after,
      none: baselines ? none : 0,
      interval: fixedRun?.tokens.after ?? 0,
      deleteOldest: window?.tokens ?? 0,
      cost,
      billed,
      outcome: prepared.outcome,
      events: events.slice(seen),
      notices: prepared.notices.map((n) => n.type),
    };
    steps.push(record);
    const openingSaid = openingAt < at;
    const keepsOpening = (list: readonly Entry[]) => !openingSaid || list.some((e) => e.key === opening?.key);
    const tally = (key: PolicyKey, tokens: number, compacted: boolean, opened: boolean, unfit = false) => {
      const s = summaries[key];
      if (compacted) s.compactions++;
      if (unfit) {
        s.unfit++;
        return;
      }
      s.billed += tokens;
      s.peak = Math.max(s.peak, tokens);
      if (tokens > budget) s.overBudget++;
      if (!opened) s.openingLost++;
    };
    // The two Baton runs: compacted or unfit as their own outcome says.
    const ran = (key: PolicyKey, run: { outcome: string; entries: readonly Entry[] }, tokens: number) =>
      tally(key, tokens, run.outcome === 'compacted', keepsOpening(run.entries), run.outcome === 'unfit');
    ran('baton', prepared, record.baton);
    if (fixedRun && window) {
      ran('interval', fixedRun, record.interval);
      tally('none', none, false, true);
      tally('deleteOldest', window.tokens, false, !openingSaid || openingAt >= window.first);
    }
    onStep?.(record, calls.length);
  }
  let archived = 0;
  for (const [key, policySession] of [
    ['baton', session],
    ...(baselines ? [['interval', interval] as const] : []),
  ] as const) {
    const archive = await archiveSearch(policySession);
    if (key === 'baton') archived = archive.size;
    retention[key].scoreRecall(archive.holds);
  }
  return {
    steps,
    budget,
    thresholds: {
      warn: warnAt * budget,
      compact: compactAt * budget,
      target: targetAt * budget,
      truncate: truncateAt * budget,
    },
    policies: keys.map((key) => Object.assign(summaries[key], billing[key].costs())),
    probes: events.filter((e) => e.type === 'probe-decided').length,
    archived,
    ...(options.model ? { model: options.model } : {}),
    ...(pricing ? { pricing } : {}),
    rules: { kind: rules.kind, provider: rules.provider, description: rules.description },
  };
}

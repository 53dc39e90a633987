import { describe, expect, it } from 'vitest';
import type { SessionState } from '../contracts/session-state.ts';
import { cacheRulesFor } from '../pricing/cache-rules.ts';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { accrueRent, cachePrices, rentDue } from './cache-rent.ts';
import { planCompaction } from './controller.ts';
import { readFileStep } from './tool-loop.fixtures.ts';

interface Call {
  before: number;
  after: number;
  outcome: string;
  /** The ladder ran but freed too little to be kept. */
  skipped: boolean;
  /** The summarize stage ran, and the tool calls left verbatim after it. */
  summarized: boolean;
  verbatimCalls: number;
}

/**
 * A long tool loop through one session; every call's tokens and outcome. `again`: after each
 * call, the host prepares what it got once more (a retry), whose outcome and prompt are returned.
 */
async function toolLoop(options: Parameters<typeof createBaton>[0], steps: number, again = false) {
  const baton = createBaton(options);
  const session = baton.session('rent');
  const history: Entry[] = [createEntry(0, 'user', 'OPENING: audit the repository')];
  const calls: Call[] = [];
  const retries: Array<{ outcome: string; same: boolean }> = [];
  for (let s = 0; s < steps; s++) {
    // Results of varied size, as a real loop reads them (deterministic).
    readFileStep(history, s, 200 + ((s * 37) % 5) * 60);
    const prepared = await session.prepare({ entries: history });
    if (again) {
      const retry = await session.prepare({ entries: prepared.entries });
      retries.push({
        outcome: retry.outcome,
        same: JSON.stringify(retry.entries) === JSON.stringify(prepared.entries),
      });
    }
    const skipped = prepared.events.some((e) => e.type === 'compaction-skipped');
    const summarized = prepared.events.some((e) => e.type === 'stage-completed' && e.stage === 'summarize');
    const verbatimCalls = prepared.entries.filter(
      (e) => e.role === 'assistant' && e.meta?.synthetic === undefined,
    ).length;
    calls.push({ ...prepared.tokens, outcome: prepared.outcome, skipped, summarized, verbatimCalls });
  }
  return { calls, retries, options: baton.options };
}

describe('cache prices', () => {
  it("are the model's own, relative to its input price, else reads at 0.1x and writes at 1x", () => {
    expect(cachePrices(undefined, undefined)).toEqual({ read: 0.1, write: 1 });
    const anthropic = cachePrices({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, undefined);
    expect(anthropic.read).toBeCloseTo(0.1, 10);
    expect(anthropic.write).toBeCloseTo(1.25, 10);
    // Priced, with no rules and no cached price: reading the growth costs as much as writing it.
    expect(cachePrices({ input: 2, output: 8 }, undefined)).toEqual({ read: 1, write: 1 });
  });

  it("follow the provider's rules where the pricing names no cached price", () => {
    // Gemini 2.5 caches implicitly at 0.1x with free writes; the catalog may give no cached price.
    expect(cachePrices({ input: 0.1, output: 0.4 }, cacheRulesFor('gemini-2.5-flash-lite'))).toEqual({
      read: expect.closeTo(0.1, 10),
      write: 1,
    });
    // A Gemini model with no implicit cache reads at the full price.
    expect(cachePrices({ input: 1, output: 4 }, cacheRulesFor('gemini-1.5-pro'))).toEqual({
      read: 1,
      write: 1,
    });
    // Claude, known by its id alone: 0.1x reads, 5-minute writes at 1.25x.
    expect(cachePrices(undefined, cacheRulesFor('claude-sonnet-4-5'))).toEqual({ read: 0.1, write: 1.25 });
    // The pricing's own prices win over the rules' multiples.
    expect(
      cachePrices({ input: 2, output: 8, cacheRead: 1, cacheWrite: 2 }, cacheRulesFor('gpt-4o')),
    ).toEqual({ read: 0.5, write: 1 });
  });
});

describe('the rent since the last compaction', () => {
  const options = { minCompactionGain: 0.3, inputBudget: 10_000 };
  const prices = { read: 0.1, write: 1 };

  it('starts at a compaction and grows by what reading the growth above its floor costs', () => {
    const state = { warned: false, overflowStreak: 0, checkpoints: 0 } as SessionState;
    // Before the first compaction there is none: the backstop times that one.
    expect(accrueRent(state, 'ok', 5_000, prices, 'k10')).toBe(false);
    expect(state.sinceCompaction).toBeUndefined();
    expect(accrueRent(state, 'compacted', 4_000, prices, 'k11')).toBe(true);
    expect(state.sinceCompaction).toEqual({ tokens: 4_000, reads: 0, newest: 'k11' });
    accrueRent(state, 'ok', 6_000, prices, 'k12');
    accrueRent(state, 'ok', 7_005, prices, 'k13');
    expect(state.sinceCompaction).toEqual({ tokens: 4_000, reads: 501, newest: 'k13' });
    // Nothing grown, nothing spent; an unfit call sent nothing.
    accrueRent(state, 'ok', 3_900, prices, 'k14');
    expect(accrueRent(state, 'unfit', 20_000, prices, 'k15')).toBe(false);
    expect(state.sinceCompaction).toEqual({ tokens: 4_000, reads: 501, newest: 'k14' });
  });

  it('is paid by steps of the run: a call ending with the same entry as the last (a retry, a projection prepared again) is not one', () => {
    const state = { warned: false, overflowStreak: 0, checkpoints: 0 } as SessionState;
    accrueRent(state, 'compacted', 4_000, prices, 'k20');
    accrueRent(state, 'ok', 9_000, prices, 'k21');
    expect(accrueRent(state, 'ok', 9_000, prices, 'k21')).toBe(false);
    expect(state.sinceCompaction).toEqual({ tokens: 4_000, reads: 500, newest: 'k21' });
    const rent = { tokens: 4_000, reads: 4_000, newest: 'k21' };
    expect(rentDue(rent, 9_000, prices, options, 'k21')).toBe(false);
    expect(rentDue(rent, 9_000, prices, options, 'k22')).toBe(true);
    // A rent stored before steps were told apart counts every call.
    expect(rentDue({ tokens: 4_000, reads: 4_000 }, 9_000, prices, options, 'k3')).toBe(true);
  });

  it('is due once the reads paid for rewriting the floor and the prompt grew a gain past it', () => {
    expect(rentDue(undefined, 9_000, prices, options, 'k1')).toBe(false);
    expect(rentDue({ tokens: 4_000, reads: 3_999 }, 9_000, prices, options, 'k1')).toBe(false);
    expect(rentDue({ tokens: 4_000, reads: 4_000 }, 9_000, prices, options, 'k1')).toBe(true);
    expect(rentDue({ tokens: 4_000, reads: 4_000 }, 6_999, prices, options, 'k1')).toBe(false);
    // A write premium (Anthropic's 1.25x) waits for more reads.
    expect(rentDue({ tokens: 4_000, reads: 4_000 }, 9_000, { read: 0.1, write: 1.25 }, options, 'k1')).toBe(
      false,
    );
  });
});

describe('compactions of a long tool loop', () => {
  it('the first waits for compactAt; the next run as soon as the cache reads since repaid the rewrite', async () => {
    const { calls, options } = await toolLoop({ contextWindow: 32_000 }, 160);
    const budget = options.inputBudget as number;
    const compacted = calls.flatMap((c, i) => (c.outcome === 'compacted' ? [i] : []));
    expect(compacted.length).toBeGreaterThanOrEqual(3);
    const first = compacted[0]!;
    expect(calls[first]!.before).toBeGreaterThan(options.compactAt * budget);
    // After each compaction, the ladder runs again at the first call where the reads of the
    // growth since (0.1x) reached the prompt it left (1x) with the prompt a gain above it: it
    // compacts there, or frees too little, is skipped, and waits for the prompt to grow a gain
    // past what it reached. Well below compactAt.
    for (const [k, at] of compacted.slice(1).entries()) {
      const last = compacted[k]!;
      const floor = calls[last]!.after;
      let reads = 0;
      let due = -1;
      for (let i = last + 1; i < calls.length && due < 0; i++) {
        if (reads >= floor && calls[i]!.before - floor >= options.minCompactionGain * budget) due = i;
        reads = Math.round(reads + 0.1 * Math.max(0, calls[i]!.after - floor));
      }
      expect(due).toBeGreaterThan(last);
      expect(at).toBeGreaterThanOrEqual(due);
      expect(calls.slice(last + 1, due).every((c) => c.outcome === 'ok' && !c.skipped)).toBe(true);
      if (at > due) expect(calls[due]!.skipped).toBe(true);
      // A skipped compaction waits for the prompt to grow: never the ladder on two calls in a row.
      for (let i = due + 1; i <= at; i++) expect(calls[i - 1]!.skipped && calls[i]!.skipped).toBe(false);
      expect(calls[at]!.before).toBeLessThan(options.compactAt * budget);
      // Started by the rent, it summarizes all but the newest two turns (four otherwise).
      if (calls[at]!.summarized) expect(calls[at]!.verbatimCalls).toBe(2);
    }
    expect(compacted.slice(1).some((at) => calls[at]!.summarized)).toBe(true);
  });

  it('are timed by steps: preparing each prompt again (a retry) changes neither it nor when the next compaction runs', async () => {
    const plain = await toolLoop({ contextWindow: 32_000 }, 160);
    const retried = await toolLoop({ contextWindow: 32_000 }, 160, true);
    expect(retried.calls).toEqual(plain.calls);
    expect(retried.retries.every((r) => r.outcome === 'ok' && r.same)).toBe(true);
  });

  it('compact more often where cached reads cost more, and only over the budget with compactAt 1', async () => {
    const cheapReads = await toolLoop({ contextWindow: 32_000 }, 200);
    const fullReads = await toolLoop(
      {
        contextWindow: 32_000,
        model: 'm',
        catalog: { m: { contextWindow: 32_000, encoding: 'o200k_base', pricing: { input: 1, output: 4 } } },
      },
      200,
    );
    const count = (calls: Call[]) => calls.filter((c) => c.outcome === 'compacted').length;
    expect(count(fullReads.calls)).toBeGreaterThan(count(cheapReads.calls));
    // Priced the same, but a Gemini 2.5 model: its provider reads the cache at 0.1x.
    const gemini = await toolLoop(
      {
        contextWindow: 32_000,
        model: 'gemini-2.5-custom',
        catalog: {
          'gemini-2.5-custom': {
            contextWindow: 32_000,
            encoding: 'o200k_base',
            pricing: { input: 1, output: 4 },
          },
        },
      },
      200,
    );
    expect(count(gemini.calls)).toBe(count(cheapReads.calls));
    const off = await toolLoop({ contextWindow: 32_000, compactAt: 1 }, 200);
    expect(count(off.calls)).toBeGreaterThan(0);
    for (const call of off.calls)
      if (call.outcome === 'compacted')
        expect(call.before).toBeGreaterThan(off.options.inputBudget as number);
  });
});

describe('the plan of a session that compacted before', () => {
  const options = {
    compactAt: 0.8,
    targetAt: 0.3,
    truncateAt: 0.9,
    inputBudget: 10_000,
    minCompactionGain: 0.3,
  };
  const since = { compacted: true, rentDue: true };

  it('runs below compactAt when the rent is due, aiming at two thirds of the target with fewer turns kept', () => {
    const plan = planCompaction(7_500, undefined, false, options, undefined, since);
    expect(plan).toMatchObject({ run: true, steady: true, timedByRent: true });
    expect(plan.target).toBeCloseTo(2_000, 6);
    expect(
      planCompaction(7_500, undefined, false, options, undefined, { ...since, rentDue: false }).run,
    ).toBe(false);
    // The backstop after a first compaction aims as low, with the recent turns protected as usual.
    const backstop = planCompaction(8_100, undefined, false, options, undefined, since);
    expect(backstop).toMatchObject({ run: true, steady: true, timedByRent: false });
    expect(backstop.target).toBeCloseTo(2_000, 6);
    // The first compaction is the backstop's, at the usual target.
    expect(planCompaction(8_100, undefined, false, options)).toMatchObject({
      run: true,
      steady: false,
      timedByRent: false,
      target: 3_000,
    });
  });

  it("leaves the agent's requests, probes and compactAt 1 as they were", () => {
    expect(planCompaction(7_500, {}, false, options, undefined, since)).toMatchObject({
      steady: false,
      timedByRent: false,
      target: 3_000,
    });
    expect(planCompaction(7_500, undefined, true, options, undefined, since).timedByRent).toBe(false);
    expect(
      planCompaction(7_500, undefined, false, { ...options, compactAt: 1 }, undefined, since),
    ).toMatchObject({
      run: false,
      steady: false,
    });
  });
});

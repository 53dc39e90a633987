import {
  costMeter,
  createBaton,
  type Entry,
  fromOpenAIChat,
  type ProbeRequest,
  promptBlocks,
  RUBRICS,
  TokenCounter,
  tokenPricing,
} from '@baton/core';
import { filler } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { MIN_CACHED_TOKENS } from './billing.ts';
import { heuristicJudge, recordingJudge } from './offline-judge.ts';
import { type ReplayResult, replay } from './replay.ts';
import { renderReport } from './report.ts';

/** A request, `rounds` tool calls each reading a page of about `pageChars` characters, an answer. */
function audit(rounds: number, pageChars: number): Entry[] {
  return fromOpenAIChat([
    { role: 'system', content: 'You audit logs.' },
    { role: 'user', content: 'Audit all pages.' },
    ...Array.from({ length: rounds }, (_, i) => [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function' as const, function: { name: 'read', arguments: `{"page":${i}}` } },
        ],
      },
      { role: 'tool' as const, tool_call_id: `c${i}`, content: `page ${i}\n${filler(pageChars, i)}` },
    ]).flat(),
    { role: 'assistant', content: 'All pages are fine.' },
  ]);
}

const policy = (result: ReplayResult, key: string) => result.policies.find((p) => p.key === key)!;

describe('replay costs', () => {
  // Three model calls: before each assistant message (entries 2, 4 and 6).
  const entries = audit(2, 6_000);
  const baton = createBaton({ model: 'claude-sonnet-4' });
  const counter = new TokenCounter(baton.options.tokenizer, baton.options.opaqueTokens);
  const size = (end: number) => entries.slice(0, end).reduce((sum, e) => sum + counter.raw(e), 0);
  const [p1, p2, p3] = [size(2), size(4), size(6)];
  const reply = [2, 4, 6].map((i) => counter.raw(entries[i]!));

  it('bills no compaction by hand: the shared prefix cached once past the provider minimum', async () => {
    expect(p1).toBeLessThan(MIN_CACHED_TOKENS); // call 2 shares only the opening: too short to be cached
    expect(p2).toBeGreaterThan(MIN_CACHED_TOKENS);
    const result = await replay(entries, { model: 'claude-sonnet-4', pinned: [], interval: 10 });
    const none = policy(result, 'none');
    const [c1, c2, c3] = [p1, p2, 0.1 * p2 + (p3 - p2)];
    expect(result.steps.map((s) => s.cost.none)).toEqual([c1, c2, expect.closeTo(c3, 6)]);
    expect(none.calls).toBe(3);
    expect(none.cacheAdjusted).toBeCloseTo(c1 + c2 + c3, 6);
    expect(none.cacheAdjustedWrite).toBeCloseTo(1.25 * p1 + 1.25 * p2 + 0.1 * p2 + 1.25 * (p3 - p2), 6);
    expect(none.cachedShare).toBeCloseTo(p2 / (p1 + p2 + p3), 9);
    // Claude Sonnet 4: $3 input, $15 output, $0.30 cache read, $3.75 cache write per million, by
    // Anthropic's rules with breakpoints on the system message and the newest message: call 1
    // (under 1,024 tokens) caches nothing and pays the input price; call 2 writes its prompt at
    // its newest message; call 3 reads that (2 blocks back) and writes the rest.
    const output = reply.reduce((a, b) => a + b, 0);
    expect(result.rules).toMatchObject({ kind: 'breakpoints', provider: 'anthropic' });
    expect(result.pricing).toMatchObject({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(none.usd).toBeCloseTo((p1 * 3 + p2 * 3.75 + p2 * 0.3 + (p3 - p2) * 3.75 + output * 15) / 1e6, 12);
    expect(none.billedCachedShare).toBeCloseTo(p2 / (p1 + p2 + p3), 9);
    expect(result.steps.map((s) => s.billed.none)).toEqual([
      { inputTokens: p1, cachedTokens: 0 },
      { inputTokens: p2, cachedTokens: 0 },
      { inputTokens: p3, cachedTokens: p2 },
    ]);
    // A host that sets no breakpoints: Anthropic caches nothing, every input token at $3.
    expect(none.usdNoBreakpoints).toBeCloseTo(((p1 + p2 + p3) * 3 + output * 15) / 1e6, 12);
    expect(none.billedCachedShareNoBreakpoints).toBe(0);
    // Nothing to compact in a 200k window: Baton sends exactly the history.
    expect(policy(result, 'baton')).toMatchObject({
      cacheAdjusted: none.cacheAdjusted,
      usd: none.usd,
      usdNoBreakpoints: none.usdNoBreakpoints,
      cachedShare: none.cachedShare,
    });
  });

  it('bills an OpenAI model by its automatic caching: the same with breakpoints or without', async () => {
    const result = await replay(entries, { model: 'gpt-4o', pinned: [], interval: 10 });
    const none = policy(result, 'none');
    expect(result.rules).toMatchObject({ kind: 'automatic', provider: 'openai' });
    // Call 3 reads call 2's prompt from 1,024 tokens in 128-token steps; no write fee.
    const cached = 1_024 + Math.floor((p2 - 1_024) / 128) * 128;
    expect(result.steps.map((s) => s.billed.none.cachedTokens)).toEqual([0, 0, cached]);
    const output = reply.reduce((a, b) => a + b, 0);
    // GPT-4o: $2.50 input, $1.25 cached input, $10 output per million.
    expect(none.usd).toBeCloseTo(((p1 + p2 + p3 - cached) * 2.5 + cached * 1.25 + output * 10) / 1e6, 12);
    expect(none.usdNoBreakpoints).toBe(none.usd);
  });

  it('gives USD only for a model with prices', async () => {
    const unpriced = await replay(entries, { contextWindow: 128_000, pinned: [], interval: 10 });
    expect(unpriced.pricing).toBeUndefined();
    for (const p of unpriced.policies) {
      expect(p.usd, p.name).toBeUndefined();
      expect(p.cacheAdjusted, p.name).toBeGreaterThan(0);
    }
  });

  it("bills Baton's prompts as it sends them, trailing notices and probes included", async () => {
    const long = audit(40, 1_500);
    const options = { contextWindow: 8_000, pinned: [], interval: 10, selfCompact: 'general' as const };
    const result = await replay(long, options);
    const batonCost = policy(result, 'baton');
    expect(result.probes).toBeGreaterThan(0);
    expect(batonCost.calls).toBe(result.steps.length + result.probes);

    // The same loop, billed here: one meter, each probe's request before its step's call.
    const asked: Array<{ request: ProbeRequest; output: unknown }> = [];
    const session = createBaton({
      contextWindow: 8_000,
      pinnedTools: [],
      selfCompact: { rubric: 'general', judge: recordingJudge(heuristicJudge('general'), asked) },
    }).session('check');
    const meter = costMeter({ pricing: tokenPricing(), minCachedTokens: MIN_CACHED_TOKENS });
    let trailers = 0;
    for (const step of result.steps) {
      const before = asked.length;
      const prepared = await session.prepare({ entries: long.slice(0, step.at) });
      let cost = 0;
      for (const { request, output } of asked.slice(before)) {
        expect(request.prompt).toContain(RUBRICS.general.criteria[0]!.id);
        const prompt = promptBlocks({ ...request, trailer: request.prompt }, counter);
        cost += meter.bill({ prompt, outputTokens: counter.rawText(JSON.stringify(output)) }).cost;
      }
      if (prepared.trailer) trailers++;
      cost += meter.bill({ prompt: promptBlocks(prepared, counter) }).cost;
      expect(step.cost.baton, `step ${step.step}`).toBeCloseTo(cost, 6);
    }
    expect(trailers).toBeGreaterThan(0);
    expect(batonCost.cacheAdjusted).toBeCloseTo(meter.totals.cost, 6);
    // Baton breaks the cache only when it compacts; a sliding window breaks it at every call.
    const window = policy(result, 'deleteOldest');
    expect(batonCost.cachedShare).toBeGreaterThan(window.cachedShare);
    expect(batonCost.cacheAdjusted).toBeLessThan(window.cacheAdjusted);
  });

  it('draws the cumulative cost of every policy and a totals table in the report', async () => {
    const result = await replay(audit(12, 1_500), {
      model: 'gpt-4o',
      contextWindow: 8_000,
      pinned: [],
      interval: 4,
    });
    const html = renderReport(result, { file: 'audit.json', format: 'OpenAI', settings: 'window 8,000' });
    for (const p of result.policies) {
      const line = new RegExp(`<polyline class="cost-series ${p.key}"[^>]* points="([^"]+)"`).exec(html);
      expect(line, p.key).not.toBeNull();
      const points = line![1]!.split(' ');
      expect(points).toHaveLength(result.steps.length);
      expect(html).toContain(`<td>${p.name}</td><td>${p.calls}</td>`);
    }
    expect(html).toContain('<th>USD</th>');
    expect(html).toContain('gpt-4o at its registry prices per million tokens: input $2.5, output $10');
  });
});

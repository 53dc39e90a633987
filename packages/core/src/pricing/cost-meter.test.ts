import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../tokens/token-counter.ts';
import { gptTokenizer } from '../tokens/tokenizer.ts';
import { createEntry } from '../transcript/transcript.ts';
import { costMeter, type PromptBlock, promptBlocks, tokenPricing } from './cost-meter.ts';
import { lookupModel } from './model-catalog.ts';

const block = (id: string, tokens: number): PromptBlock => ({ id, tokens });

describe('costMeter', () => {
  it('bills the prefix a live earlier prompt shares at the cached price, the rest at the write price', () => {
    const pricing = lookupModel('claude-sonnet-4')!.pricing!; // 3 in, 15 out, 0.3 read, 3.75 write
    const meter = costMeter({ pricing });
    const first = meter.bill({ prompt: [block('s', 1_000), block('u', 500)], outputTokens: 100 });
    expect(first).toEqual({
      inputTokens: 1_500,
      cachedTokens: 0,
      writtenTokens: 1_500,
      outputTokens: 100,
      cost: (1_500 * 3.75 + 100 * 15) / 1e6,
    });
    const second = meter.bill({ prompt: [block('s', 1_000), block('u', 500), block('a', 200)] });
    expect(second.cachedTokens).toBe(1_500);
    expect(second.writtenTokens).toBe(200);
    expect(second.cost).toBeCloseTo((1_500 * 0.3 + 200 * 3.75) / 1e6, 12);
    expect(meter.totals).toMatchObject({
      calls: 2,
      inputTokens: 3_200,
      cachedTokens: 1_500,
      outputTokens: 100,
    });
    expect(meter.totals.cost).toBeCloseTo(first.cost + second.cost, 12);
  });

  it('matches whole leading blocks: one changed block early costs everything after it', () => {
    const meter = costMeter({ pricing: tokenPricing() });
    meter.bill({ prompt: [block('s', 100), block('a', 100), block('b', 100)] });
    const changed = meter.bill({ prompt: [block('s', 100), block('a2', 100), block('b', 100)] });
    expect(changed.cachedTokens).toBe(100);
    // Token equivalents: 100 cached at 0.1, 200 new at 1.
    expect(changed.cost).toBeCloseTo(210, 9);
  });

  it('keeps earlier prompts live: a side call (a summary) does not evict the conversation', () => {
    const meter = costMeter({ pricing: tokenPricing({ cacheWrite: 1.25 }) });
    meter.bill({ prompt: [block('s', 100), block('a', 100)] });
    meter.bill({ prompt: [block('summary-instruction', 50), block('a', 100)] });
    const next = meter.bill({ prompt: [block('s', 100), block('a', 100), block('b', 10)] });
    expect(next.cachedTokens).toBe(200);
    expect(next.cost).toBeCloseTo(200 * 0.1 + 10 * 1.25, 9);
  });

  it('forgets a prompt unused for longer than the cache lifetime; each hit renews it', () => {
    const pricing = { input: 1, output: 0, cacheRead: 0.1, cacheTtlMs: 1_000 };
    const meter = costMeter({ pricing });
    const prompt = [block('s', 100)];
    meter.bill({ prompt, at: 0 });
    expect(meter.bill({ prompt, at: 900 }).cachedTokens).toBe(100);
    expect(meter.bill({ prompt, at: 1_800 }).cachedTokens).toBe(100); // renewed at 900
    expect(meter.bill({ prompt, at: 2_801 }).cachedTokens).toBe(0);
    // A hit renews the prefix it read, not the rest of the prompt it read it from.
    meter.bill({ prompt: [block('s', 100), block('a', 50)], at: 3_000 });
    meter.bill({ prompt: [block('s', 100), block('b', 50)], at: 3_900 });
    expect(meter.bill({ prompt: [block('s', 100), block('a', 50)], at: 4_500 }).cachedTokens).toBe(100);
    // Without a clock no time passes: a replay stays within the lifetime.
    expect(meter.bill({ prompt }).cachedTokens).toBe(100);
  });

  it('bills a shared prefix shorter than the provider minimum as new input', () => {
    const meter = costMeter({ pricing: tokenPricing(), minCachedTokens: 1_024 });
    meter.bill({ prompt: [block('s', 1_000), block('a', 100)] });
    expect(meter.bill({ prompt: [block('s', 1_000), block('b', 100)] }).cachedTokens).toBe(0);
    expect(meter.bill({ prompt: [block('s', 1_000), block('b', 100), block('c', 5)] }).cachedTokens).toBe(
      1_100,
    );
  });

  it('without cache prices bills every input token at the input price', () => {
    const meter = costMeter({ pricing: { input: 2, output: 0 } });
    meter.bill({ prompt: [block('s', 1_000)] });
    expect(meter.bill({ prompt: [block('s', 1_000)] }).cost).toBeCloseTo(0.002, 12);
  });
});

describe('promptBlocks', () => {
  const counter = new TokenCounter(gptTokenizer(), 512);
  const entries = [createEntry(0, 'user', 'fix the build'), createEntry(1, 'assistant', 'on it')];

  it('is the system prompt, the projection and the trailer, with exact counts', () => {
    const blocks = promptBlocks({ system: 'You are terse.', entries, trailer: '[notices]' }, counter);
    expect(blocks).toHaveLength(4);
    expect(blocks[0]!.tokens).toBe(counter.rawText('You are terse.'));
    expect(blocks[1]!.tokens).toBe(counter.raw(entries[0]!));
    expect(promptBlocks({ entries }, counter)).toHaveLength(2);
    // Anthropic's lookback counts content blocks: a message's parts.
    const calls = createEntry(2, 'assistant', [
      { type: 'text', text: 'reading both' },
      { type: 'tool-call', id: 'c1', name: 'read', input: { path: 'a' } },
      { type: 'tool-call', id: 'c2', name: 'read', input: { path: 'b' } },
    ]);
    expect(promptBlocks({ entries: [calls] }, counter)[0]!.contentBlocks).toBe(3);
  });

  it('a new trailer leaves the cached prefix whole; a changed system prompt loses all of it', () => {
    const meter = costMeter({ pricing: tokenPricing() });
    meter.bill({ prompt: promptBlocks({ system: 'S', entries, trailer: 'warning' }, counter) });
    const sameSystem = promptBlocks({ system: 'S', entries, trailer: 'eviction' }, counter);
    expect(meter.bill({ prompt: sameSystem }).cachedTokens).toBe(
      sameSystem.slice(0, 3).reduce((sum, b) => sum + b.tokens, 0),
    );
    expect(meter.bill({ prompt: promptBlocks({ system: 'S + notes', entries }, counter) }).cachedTokens).toBe(
      0,
    );
  });
});

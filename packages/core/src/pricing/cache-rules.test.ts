import { describe, expect, it } from 'vitest';
import { BatonConfigError } from '../util/errors.ts';
import { anthropicCacheRules, cacheRulesFor, geminiCacheRules, openaiCacheRules } from './cache-rules.ts';
import { costMeter, type PromptBlock, withBreakpoints } from './cost-meter.ts';
import type { ModelPricing } from './model-catalog.ts';

const block = (id: string, tokens: number, contentBlocks = 1): PromptBlock => ({ id, tokens, contentBlocks });
/** Claude Sonnet 4.5's prices per million tokens (Anthropic's pricing page): passed explicitly, not from the catalog. */
const SONNET: ModelPricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const anthropic = () => costMeter({ pricing: SONNET, rules: anthropicCacheRules() });

describe('Anthropic: cache only up to breakpoints', () => {
  it('caches nothing a request does not mark: the same prompt twice is billed twice at the input price', () => {
    const meter = anthropic();
    const prompt = [block('system', 3_000), block('u1', 500)];
    meter.bill({ prompt });
    expect(meter.bill({ prompt })).toMatchObject({
      cachedTokens: 0,
      writtenTokens: 0,
      cost: (3_500 * 3) / 1e6,
    });
  });

  it('writes the prefix up to a breakpoint at 1.25x, reads it at 0.1x, bills what follows it as input', () => {
    const meter = anthropic();
    const first = meter.bill({ prompt: withBreakpoints([block('system', 3_000), block('u1', 500)], [0]) });
    expect(first).toMatchObject({ inputTokens: 3_500, cachedTokens: 0, writtenTokens: 3_000 });
    expect(first.cost).toBeCloseTo((3_000 * 3.75 + 500 * 3) / 1e6, 12);
    const second = meter.bill({ prompt: withBreakpoints([block('system', 3_000), block('u2', 700)], [0]) });
    expect(second).toMatchObject({ cachedTokens: 3_000, writtenTokens: 0 });
    expect(second.cost).toBeCloseTo((3_000 * 0.3 + 700 * 3) / 1e6, 12);
  });

  it('never caches a prompt below the model minimum (1,024 for Sonnet, 4,096 for Haiku 4.5)', () => {
    const sonnet = anthropic();
    const short = withBreakpoints([block('system', 900), block('u', 100)], [1]);
    sonnet.bill({ prompt: short });
    expect(sonnet.bill({ prompt: short })).toMatchObject({ cachedTokens: 0, writtenTokens: 0 });
    const haiku = costMeter({ pricing: SONNET, rules: cacheRulesFor('claude-haiku-4-5')! });
    const medium = withBreakpoints([block('system', 3_000), block('u', 1_000)], [1]);
    haiku.bill({ prompt: medium });
    expect(haiku.bill({ prompt: medium })).toMatchObject({ cachedTokens: 0, writtenTokens: 0 });
    // The same 4,000 tokens on Sonnet: written once, then read.
    sonnet.bill({ prompt: medium });
    expect(sonnet.bill({ prompt: medium }).cachedTokens).toBe(4_000);
  });

  it('does not read a prefix that does not end at a breakpoint, even byte for byte the same', () => {
    const meter = anthropic();
    const conversation = [block('system', 2_000), block('a', 1_000), block('b', 1_000)];
    meter.bill({ prompt: withBreakpoints(conversation, [0]) });
    // The next call marks only its newest message: the earlier entry (system) is within the
    // lookback and read; a, b were never written, so they are written now.
    const next = meter.bill({ prompt: withBreakpoints([...conversation, block('c', 100)], [3]) });
    expect(next).toMatchObject({ cachedTokens: 2_000, writtenTokens: 2_100 });
    // An entry that ends after the breakpoint is out of reach: marking only the system prompt
    // reads 2,000 though 4,100 tokens were written.
    expect(
      meter.bill({ prompt: withBreakpoints([...conversation, block('c', 100)], [0]) }).cachedTokens,
    ).toBe(2_000);
    // And without a breakpoint nothing is read at all.
    expect(meter.bill({ prompt: [...conversation, block('c', 100)] }).cachedTokens).toBe(0);
  });

  it('looks back 20 content blocks from a breakpoint for an earlier entry, not 21', () => {
    const history = (turns: number, blocksPerTurn: number) => [
      block('system', 2_000),
      ...Array.from({ length: turns }, (_, i) => block(`m${i}`, 100, blocksPerTurn)),
    ];
    const run = (blocksPerTurn: number) => {
      const meter = anthropic();
      const before = history(4, blocksPerTurn);
      meter.bill({ prompt: withBreakpoints(before, [before.length - 1]) });
      // Five new messages after the last breakpoint: 5 x 4 = 20 content blocks, or 5 x 5 = 25.
      const after = history(9, blocksPerTurn);
      return meter.bill({ prompt: withBreakpoints(after, [after.length - 1]) }).cachedTokens;
    };
    expect(run(4)).toBe(2_000 + 4 * 100);
    // Past the lookback the earlier entry is not found: nothing read, all of it written again.
    expect(run(5)).toBe(0);
  });

  it('bills 5-minute writes at 1.25x and 1-hour writes at 2x, each stretch at its breakpoint lifetime', () => {
    const meter = anthropic();
    const prompt = withBreakpoints(
      withBreakpoints([block('system', 2_000), block('a', 1_000), block('tail', 10)], [0], '1h'),
      [1],
      '5m',
    );
    const billed = meter.bill({ prompt });
    expect(billed.writtenTokens).toBe(3_000);
    expect(billed.cost).toBeCloseTo((2_000 * 6 + 1_000 * 3.75 + 10 * 3) / 1e6, 12);
    // Without a registry write price the multiples apply to the input price.
    const bare = costMeter({ pricing: { input: 1, output: 0 }, rules: anthropicCacheRules() });
    expect(bare.bill({ prompt }).cost).toBeCloseTo((2_000 * 2 + 1_000 * 1.25 + 10) / 1e6, 12);
  });

  it('keeps a 5-minute entry 5 minutes after its last use and a 1-hour entry an hour', () => {
    const meter = anthropic();
    const short = withBreakpoints([block('s', 2_000)], [0], '5m');
    const long = withBreakpoints([block('l', 2_000)], [0], '1h');
    meter.bill({ prompt: short, at: 0 });
    meter.bill({ prompt: long, at: 0 });
    expect(meter.bill({ prompt: short, at: 4 * 60_000 }).cachedTokens).toBe(2_000); // refreshed at 4 min
    expect(meter.bill({ prompt: short, at: 8 * 60_000 }).cachedTokens).toBe(2_000);
    expect(meter.bill({ prompt: short, at: 14 * 60_000 }).cachedTokens).toBe(0);
    expect(meter.bill({ prompt: long, at: 50 * 60_000 }).cachedTokens).toBe(2_000);
  });

  it('refuses a prompt with more than 4 breakpoints, or a 1-hour one after a 5-minute one', () => {
    const meter = anthropic();
    const five = Array.from({ length: 5 }, (_, i) => block(`m${i}`, 500));
    expect(() => meter.bill({ prompt: withBreakpoints(five, [0, 1, 2, 3, 4]) })).toThrow(BatonConfigError);
    const mixed = withBreakpoints(withBreakpoints(five, [0], '5m'), [3], '1h');
    expect(() => meter.bill({ prompt: mixed })).toThrow(/longer lifetimes first/);
    expect(() => withBreakpoints(five, [5])).toThrow(BatonConfigError);
  });
});

describe('OpenAI: automatic from 1,024 tokens in 128-token increments', () => {
  const pricing: ModelPricing = { input: 2.5, output: 10, cacheRead: 1.25 }; // gpt-4o
  const shared = (prefix: number) => {
    const meter = costMeter({ pricing, rules: openaiCacheRules() });
    meter.bill({ prompt: [block('p', prefix), block('x', 500)] });
    return meter.bill({ prompt: [block('p', prefix), block('y', 500)] });
  };

  it('reads nothing under 1,024 shared tokens, then 1,024 + 128 k', () => {
    expect(shared(1_023).cachedTokens).toBe(0);
    expect(shared(1_024).cachedTokens).toBe(1_024);
    expect(shared(1_151).cachedTokens).toBe(1_024);
    expect(shared(1_152).cachedTokens).toBe(1_152);
    expect(shared(1_500).cachedTokens).toBe(1_024 + 3 * 128);
  });

  it('charges nothing for writing: uncached input at the input price, cached at the model cached price', () => {
    const hit = shared(1_500);
    expect(hit.writtenTokens).toBe(0);
    const cached = 1_024 + 3 * 128;
    expect(hit.cost).toBeCloseTo((cached * 1.25 + (2_000 - cached) * 2.5) / 1e6, 12);
    // Breakpoints mean nothing to OpenAI: marked or not, the same bill.
    const meter = costMeter({ pricing, rules: openaiCacheRules() });
    meter.bill({ prompt: withBreakpoints([block('p', 1_500), block('x', 500)], [0]) });
    expect(meter.bill({ prompt: [block('p', 1_500), block('y', 500)] }).cachedTokens).toBe(cached);
  });

  it("reads at the family's cached price where the pricing has none: 0.5x, 0.25x, 0.1x", () => {
    const read = (model: string) => {
      const meter = costMeter({ pricing: { input: 1, output: 0 }, rules: cacheRulesFor(model)! });
      meter.bill({ prompt: [block('p', 2_048)] });
      return meter.bill({ prompt: [block('p', 2_048)] }).cost / (2_048 / 1e6);
    };
    expect(read('gpt-4o-mini')).toBeCloseTo(0.5, 9);
    expect(read('gpt-4.1')).toBeCloseTo(0.25, 9);
    expect(read('o4-mini')).toBeCloseTo(0.25, 9);
    expect(read('openai/gpt-5-mini')).toBeCloseTo(0.1, 9);
  });
});

describe('Gemini: implicit caching', () => {
  it('reads a shared prefix from the model minimum (2,048 on 2.5, 4,096 on 3.x), with no write fee', () => {
    const billed = (model: string, prefix: number) => {
      const meter = costMeter({
        pricing: { input: 1.25, output: 10, cacheRead: 0.125 },
        rules: cacheRulesFor(model)!,
      });
      meter.bill({ prompt: [block('p', prefix), block('x', 100)] });
      return meter.bill({ prompt: [block('p', prefix), block('y', 100)] });
    };
    expect(billed('gemini-2.5-pro', 2_047).cachedTokens).toBe(0);
    expect(billed('gemini-2.5-pro', 3_000)).toMatchObject({ cachedTokens: 3_000, writtenTokens: 0 });
    expect(billed('gemini-3-pro-preview', 3_000).cachedTokens).toBe(0);
    expect(billed('gemini-3-pro-preview', 4_096).cachedTokens).toBe(4_096);
    expect(billed('gemini-2.5-flash', 3_000).cost).toBeCloseTo((3_000 * 0.125 + 100 * 1.25) / 1e6, 12);
    // Before 2.5 there is no implicit cache.
    expect(billed('gemini-2.0-flash', 10_000).cachedTokens).toBe(0);
  });
});

describe('cacheRulesFor', () => {
  it('names each provider and its minimum from the model id', () => {
    expect(cacheRulesFor('claude-sonnet-4-5')).toMatchObject({ kind: 'breakpoints', minTokens: 1_024 });
    expect(cacheRulesFor('anthropic/claude-opus-4-5-20251101')).toMatchObject({ minTokens: 4_096 });
    expect(cacheRulesFor('claude-3-5-haiku-latest')).toMatchObject({ minTokens: 2_048 });
    // The AI Gateway's and OpenRouter's dotted versions name the same models.
    expect(cacheRulesFor('anthropic/claude-haiku-4.5')).toMatchObject({ minTokens: 4_096 });
    expect(cacheRulesFor('anthropic/claude-3.5-haiku')).toMatchObject({ minTokens: 2_048 });
    expect(cacheRulesFor('anthropic/claude-sonnet-4.5')).toMatchObject({ minTokens: 1_024 });
    expect(cacheRulesFor('gpt-4o')).toMatchObject({ kind: 'automatic', provider: 'openai', increment: 128 });
    expect(cacheRulesFor('gemini-2.5-flash')).toEqual(geminiCacheRules({ minTokens: 2_048 }));
    expect(cacheRulesFor('gemini-1.5-pro')?.kind).toBe('none');
    expect(cacheRulesFor('mistral-large-latest')).toBeUndefined();
  });
});

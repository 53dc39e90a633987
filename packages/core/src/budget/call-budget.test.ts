import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import { createBaton } from '../index.ts';
import { lookupModel } from '../pricing/model-catalog.ts';
import type { Entry } from '../transcript/transcript.ts';
import { BatonConfigError, BatonModelError } from '../util/errors.ts';
import { resolveCallBudget } from './call-budget.ts';
import { type BatonOptions, resolveOptions } from './options.ts';
import { providerOutputDefault } from './provider-output-defaults.ts';

const ANTHROPIC = { modelId: 'claude-sonnet-4-5', provider: 'anthropic.messages' } as const;
const budgetOf = (options: BatonOptions, call: Parameters<typeof resolveCallBudget>[1]) =>
  resolveCallBudget(resolveOptions(options), call);
const entries: Entry[] = [{ key: 'u1', seq: 0, role: 'user', parts: [{ type: 'text', text: 'hello' }] }];

describe('the output reservation of a call', () => {
  it('is, in order: the reserveOutput option, the call limit, the provider default, Baton default', () => {
    // The provider package's default: @ai-sdk/anthropic sends 64,000 for claude-sonnet-4-5.
    expect(budgetOf({}, ANTHROPIC)).toMatchObject({
      contextWindow: 200_000,
      reserveOutput: 64_000,
      source: 'provider-default',
    });
    // The call's own limit wins over the provider's default.
    expect(budgetOf({}, { ...ANTHROPIC, maxOutputTokens: 8_000 })).toMatchObject({
      reserveOutput: 8_000,
      source: 'call',
    });
    // The explicit option wins over both.
    expect(budgetOf({ reserveOutput: 70_000 }, { ...ANTHROPIC, maxOutputTokens: 8_000 })).toMatchObject({
      reserveOutput: 70_000,
      source: 'option',
    });
    // A provider that sends no limit unless asked (OpenAI): Baton's default, min(maxOutput, 16,384, 20%).
    expect(budgetOf({}, { modelId: 'gpt-4o', provider: 'openai.chat' })).toMatchObject({
      contextWindow: 128_000,
      reserveOutput: 16_384,
      source: 'baton-default',
    });
    expect(
      budgetOf({ contextWindow: 50_000 }, { modelId: 'gpt-4o', provider: 'openai.chat' }).reserveOutput,
    ).toBe(10_000);
  });

  it('caps a provider default that cannot fit, where the host can lower it, and keeps it reserved where it cannot', () => {
    // 64,000 on a 32,000 window: capped to Baton's default (20% of the window) in the request.
    const capped = budgetOf({ contextWindow: 32_000 }, ANTHROPIC);
    expect(capped).toMatchObject({ reserveOutput: 6_400, outputCap: 6_400 });
    expect(capped.unfitDefault).toEqual({ requested: 64_000, applied: true });
    // 128,000 (claude-sonnet-4-6) on a 200k window leaves less than half: capped at 16,384.
    expect(
      budgetOf({ contextWindow: 200_000 }, { ...ANTHROPIC, modelId: 'claude-sonnet-4-6' }),
    ).toMatchObject({
      reserveOutput: 16_384,
      outputCap: 16_384,
    });
    // A host that cannot lower it: the default is reserved (input + max_tokens still fits), and said why.
    const kept = budgetOf(
      { contextWindow: 100_000 },
      { ...ANTHROPIC, cannotCapOutput: 'the model is bound' },
    );
    expect(kept).toMatchObject({ reserveOutput: 64_000, source: 'provider-default' });
    expect(kept.outputCap).toBeUndefined();
    expect(kept.unfitDefault).toEqual({ requested: 64_000, applied: false, reason: 'the model is bound' });
    // An explicit reserveOutput below the default the request would send: the request is capped to it.
    expect(budgetOf({ reserveOutput: 16_384 }, ANTHROPIC)).toMatchObject({
      reserveOutput: 16_384,
      outputCap: 16_384,
      source: 'option',
    });
    // ... and so is a larger limit the call sets itself: the option wins.
    expect(budgetOf({ reserveOutput: 16_384 }, { ...ANTHROPIC, maxOutputTokens: 32_000 })).toMatchObject({
      reserveOutput: 16_384,
      outputCap: 16_384,
      unfitDefault: { requested: 32_000, applied: true },
    });
    // Within half the window: reserved as is, nothing capped.
    expect(budgetOf({}, ANTHROPIC).outputCap).toBeUndefined();
  });

  it('refuses a limit the host cannot lower where reserving it cannot keep input + limit within the window', () => {
    const bound = { ...ANTHROPIC, cannotCapOutput: 'set maxTokens on the model' };
    // The option below what the request will carry: reserving less would let input + max_tokens
    // exceed the window, so the option cannot be kept; the message says both ways out.
    const below = () =>
      budgetOf({ contextWindow: 100_000, reserveOutput: 4_000 }, { ...bound, maxOutputTokens: 16_384 });
    expect(below).toThrow(BatonConfigError);
    expect(below).toThrow(
      "[baton] [budget] reserveOutput (4000) is below this call's output limit (16384 tokens), so input + output limit could exceed the 100000-token window of 'claude-sonnet-4-5'; the adapter cannot lower it: set maxTokens on the model, or raise reserveOutput to 16384",
    );
    // The provider's default no smaller than the window: no reservation can hold it.
    expect(() => budgetOf({ contextWindow: 32_000 }, bound)).toThrow(
      "[baton] [budget] this call's output limit (64000 tokens) leaves no room for the prompt in the 32000-token window of 'claude-sonnet-4-5'; the adapter cannot lower it: set maxTokens on the model",
    );
    // ... nor the call's own limit; and with the option at or above the request's limit, it is kept.
    expect(() => budgetOf({ contextWindow: 8_000 }, { ...bound, maxOutputTokens: 16_384 })).toThrow(
      /output limit \(16384 tokens\) leaves no room .*set maxTokens on the model$/,
    );
    expect(
      budgetOf({ contextWindow: 100_000, reserveOutput: 16_384 }, { ...bound, maxOutputTokens: 16_384 }),
    ).toMatchObject({ reserveOutput: 16_384, source: 'option' });
  });

  it('takes the window and prices from the call model, an explicit option winning', () => {
    expect(budgetOf({}, { modelId: 'claude-opus-4-5' })).toMatchObject({
      model: 'claude-opus-4-5',
      contextWindow: 200_000,
      pricing: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    });
    expect(budgetOf({ model: 'gpt-4o' }, ANTHROPIC)).toMatchObject({
      model: 'gpt-4o',
      contextWindow: 128_000,
    });
    expect(budgetOf({ contextWindow: 50_000 }, ANTHROPIC).contextWindow).toBe(50_000);
    expect(
      budgetOf(
        { catalog: { 'my-llm': { contextWindow: 9_000, encoding: 'o200k_base' } } },
        { modelId: 'my-llm' },
      ).contextWindow,
    ).toBe(9_000);
  });

  it('refuses an unknown model or no model with a typed error that says how to pass the window', () => {
    const unknown = () => budgetOf({}, { modelId: 'my-local-llm', provider: 'ollama' });
    expect(unknown).toThrow(BatonModelError);
    expect(unknown).toThrow(
      /model 'my-local-llm' \(provider ollama\) is not in the catalog: pass contextWindow/,
    );
    expect(() => budgetOf({}, {})).toThrow(/no context window for this call.*pass contextWindow/);
    expect(() => budgetOf({}, { ...ANTHROPIC, maxOutputTokens: 200_000 })).toThrow(BatonConfigError);
    expect(budgetOf({ contextWindow: 8_000 }, { modelId: 'my-local-llm' }).contextWindow).toBe(8_000);
  });
});

describe('the model from the call, through Session.prepare', () => {
  it('createBaton({}) budgets each call by its model; the same session follows a model change', async () => {
    const session = createBaton({}).session('chat');
    const sonnet = await session.prepare({ entries, ...ANTHROPIC });
    expect(sonnet.tokens.budget).toBe(200_000 - 64_000);
    expect(sonnet.maxOutputTokens).toBeUndefined();
    const gpt = await session.prepare({ entries, modelId: 'gpt-4.1', provider: 'openai.responses' });
    expect(gpt.tokens.budget).toBe(1_047_576 - 16_384);
    await expect(session.prepare({ entries, modelId: 'my-local-llm' })).rejects.toBeInstanceOf(
      BatonModelError,
    );
    await expect(session.prepare({ entries })).rejects.toThrow(/no context window/);
  });

  it('a default that cannot fit is capped in the prepared request and told once per session', async () => {
    const events: BatonEvent[] = [];
    const baton = createBaton({ contextWindow: 32_000, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 3; i++) {
      const prepared = await baton.session('a').prepare({ entries, ...ANTHROPIC });
      expect(prepared.maxOutputTokens).toBe(6_400);
      expect(prepared.tokens.budget).toBe(32_000 - 6_400);
    }
    await baton.session('b').prepare({ entries, ...ANTHROPIC });
    const told = events.filter((e) => e.type === 'output-limit-capped');
    expect(told).toEqual([
      {
        type: 'output-limit-capped',
        sessionId: 'a',
        model: 'claude-sonnet-4-5',
        requested: 64_000,
        reserved: 6_400,
        contextWindow: 32_000,
        applied: true,
      },
      expect.objectContaining({ type: 'output-limit-capped', sessionId: 'b', requested: 64_000 }),
    ]);
  });

  it('refuses malformed call fields at the boundary', async () => {
    const session = createBaton({ contextWindow: 8_000 }).session('x');
    const bad = { entries, maxOutputTokens: 1.5 } as unknown as Parameters<typeof session.prepare>[0];
    await expect(session.prepare(bad)).rejects.toThrow(/maxOutputTokens: expected a positive integer/);
  });
});

describe('what provider packages send when the call sets no limit', () => {
  it('follows @ai-sdk/anthropic per model, and knows OpenAI and Google send none', () => {
    expect(providerOutputDefault('anthropic.messages', 'claude-sonnet-4-5-20250929')).toBe(64_000);
    expect(providerOutputDefault('anthropic.messages', 'claude-haiku-4-5')).toBe(64_000);
    expect(providerOutputDefault('anthropic.messages', 'claude-sonnet-4-6')).toBe(128_000);
    expect(providerOutputDefault('anthropic.messages', 'claude-opus-4-1-20250805')).toBe(32_000);
    expect(providerOutputDefault('anthropic.messages', 'claude-sonnet-4-20250514')).toBe(64_000);
    expect(providerOutputDefault('anthropic.messages', 'claude-opus-4-20250514')).toBe(32_000);
    expect(providerOutputDefault('anthropic.messages', 'claude-3-haiku-20240307')).toBe(4_096);
    expect(providerOutputDefault('anthropic.messages', 'claude-3-7-sonnet-latest')).toBe(4_096);
    expect(providerOutputDefault('vertex.anthropic.messages', 'claude-sonnet-4-5@20250929')).toBe(64_000);
    expect(providerOutputDefault('openai.chat', 'gpt-4o')).toBeUndefined();
    expect(providerOutputDefault('openai.responses', 'gpt-5')).toBeUndefined();
    expect(providerOutputDefault('google.generative-ai', 'gemini-2.5-pro')).toBeUndefined();
  });
});

describe('the catalog knows current models', () => {
  it('resolves Claude 4.5 / 4.6 ids, dated, prefixed and Bedrock forms, with prices', () => {
    const sonnet = lookupModel('claude-sonnet-4-5');
    expect(sonnet).toMatchObject({ contextWindow: 200_000, maxOutput: 64_000 });
    expect(sonnet?.pricing).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    for (const id of [
      'claude-sonnet-4-5-20250929',
      'anthropic/claude-sonnet-4-5',
      'claude-sonnet-4-5@20250929',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
    ])
      expect(lookupModel(id), id).toBe(sonnet);
    expect(lookupModel('claude-sonnet-4-6')).toMatchObject({ contextWindow: 1_000_000, maxOutput: 128_000 });
    expect(lookupModel('claude-opus-4-5-20251101')?.pricing).toMatchObject({ input: 5, output: 25 });
    expect(lookupModel('claude-opus-4-6')?.pricing).toMatchObject({ input: 5, output: 25, cacheRead: 0.5 });
    expect(lookupModel('claude-haiku-4-5-20251001')?.pricing).toEqual({
      input: 1,
      output: 5,
      cacheRead: 0.1,
      cacheWrite: 1.25,
    });
  });

  it('resolves the other models users wire (gpt-4.1, gpt-5, o-series, gemini-2.5)', () => {
    for (const id of [
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-5',
      'gpt-5-mini',
      'o3',
      'o4-mini',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
    ])
      expect(lookupModel(id)?.pricing, id).toBeDefined();
    // Flash-Lite is its own model, not Flash by prefix.
    expect(lookupModel('gemini-2.5-flash-lite')?.pricing).toMatchObject({ input: 0.1, output: 0.4 });
    // A non-Bedrock id ending in -v<digits> keeps it.
    expect(lookupModel('deepseek-v3')?.contextWindow).toBe(128_000);
  });
});

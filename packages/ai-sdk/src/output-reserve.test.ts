import { createAnthropic } from '@ai-sdk/anthropic';
import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import { anthropicRuleViolations, anthropicWire, filler, type WireRequest } from '@baton/testing';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { type BatonEvent, createBaton } from './index.ts';

const WINDOW = 200_000;
const STEPS = 45;

/**
 * A tool loop through `@ai-sdk/anthropic` on a stub that answers as the Messages API with a
 * 200k window: every step reads a file of about 6,000 tokens, so the loop crosses the
 * compaction threshold; no call sets `maxOutputTokens`, so the package sends its own default.
 */
async function toolLoop(
  modelId: string,
  options: {
    stream: boolean;
    contextWindow?: number;
    /** The provider's window (default 200k). */
    wireWindow?: number;
    /** Call settings of the host's own (an output limit, thinking). */
    settings?: { maxOutputTokens?: number; providerOptions?: SharedV4ProviderOptions };
  },
) {
  const wire = anthropicWire({
    contextWindow: options.wireWindow ?? WINDOW,
    script: ({ index }) =>
      index < STEPS - 1
        ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
        : { text: 'done' },
  });
  const events: BatonEvent[] = [];
  // The model is named once, in `anthropic(...)`: Baton reads it from the call.
  const baton = createBaton({
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    onEvent: (e) => events.push(e),
  });
  const model = wrapLanguageModel({
    model: createAnthropic({ apiKey: 'test-key', fetch: wire.fetch })(modelId),
    middleware: baton.session('long-loop').middleware,
  });
  const tools = {
    read_file: tool({
      description: 'Reads a file of the repository',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
      execute: async ({ path }) => `// ${path}\n${filler(24_000, path.length + STEPS)}`,
    }),
  };
  const call = {
    model,
    tools,
    stopWhen: stepCountIs(STEPS),
    prompt: 'Read every file of src/, then say done.',
    ...options.settings,
  };
  const text = options.stream ? await streamText(call).text : (await generateText(call)).text;
  return { text, requests: wire.requests, events };
}

const overWindow = (requests: WireRequest[]) =>
  requests.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > WINDOW);

describe("@ai-sdk/anthropic's default output limit on a 200k window", () => {
  for (const stream of [false, true]) {
    it(`reserves the 64,000 max_tokens it sends: input + max_tokens within the window in every request (${stream ? 'streamText' : 'generateText'})`, async () => {
      const { text, requests, events } = await toolLoop('claude-sonnet-4-5', { stream });
      expect(text).toBe('done');
      expect(requests).toHaveLength(STEPS);
      // What the package sends when the call sets none, in every body.
      for (const r of requests) expect(r.maxOutputTokens).toBe(64_000);
      expect(requests.filter((r) => r.refused)).toEqual([]);
      expect(overWindow(requests)).toEqual([]);
      for (const r of requests) expect(anthropicRuleViolations(r.body)).toEqual([]);
      // The loop crossed the compaction threshold and was compacted, with the prompt still large.
      expect(events.some((e) => e.type === 'stage-completed')).toBe(true);
      expect(Math.max(...requests.map((r) => r.inputTokens))).toBeGreaterThan(100_000);
      // 64,000 fits beside half the window: reserved, nothing capped, nothing to tell.
      expect(events.filter((e) => e.type === 'output-limit-capped')).toEqual([]);
    }, 120_000);
  }

  it("caps a default that leaves the prompt less than half the window (claude-sonnet-4-6's 128,000), in the request body, told once", async () => {
    const { text, requests, events } = await toolLoop('claude-sonnet-4-6', {
      stream: false,
      contextWindow: WINDOW,
    });
    expect(text).toBe('done');
    // Baton lowered the package's 128,000 to its own reservation in every request it sent.
    for (const r of requests) expect(r.maxOutputTokens).toBe(16_384);
    expect(requests.filter((r) => r.refused)).toEqual([]);
    expect(overWindow(requests)).toEqual([]);
    expect(events.filter((e) => e.type === 'output-limit-capped')).toEqual([
      {
        type: 'output-limit-capped',
        sessionId: 'long-loop',
        model: 'claude-sonnet-4-6',
        requested: 128_000,
        reserved: 16_384,
        contextWindow: WINDOW,
        applied: true,
      },
    ]);
  }, 120_000);

  it("counts Anthropic's thinking budget in what the request asks for, and caps the sum", async () => {
    const thinking = { anthropic: { thinking: { type: 'enabled', budgetTokens: 8_000 } } };
    // A limit of 4,000 with an 8,000-token thinking budget: @ai-sdk/anthropic sends 12,000.
    const small = await toolLoop('claude-sonnet-4-5', {
      stream: false,
      contextWindow: 32_000,
      wireWindow: 32_000,
      settings: { maxOutputTokens: 4_000, providerOptions: thinking },
    });
    for (const r of small.requests) expect(r.maxOutputTokens).toBe(12_000);
    expect(small.requests.filter((r) => r.refused)).toEqual([]);
    expect(small.requests.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > 32_000)).toEqual([]);
    // No limit, a default that cannot fit (128,000): the request carries 16,384 in all, thinking included.
    const capped = await toolLoop('claude-sonnet-4-6', {
      stream: false,
      contextWindow: WINDOW,
      settings: { providerOptions: thinking },
    });
    for (const r of capped.requests) expect(r.maxOutputTokens).toBe(16_384);
    expect(overWindow(capped.requests)).toEqual([]);
  }, 120_000);
});

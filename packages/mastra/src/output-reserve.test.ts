import { createAnthropic } from '@ai-sdk/anthropic';
import { anthropicRuleViolations, anthropicWire, filler, type WireRequest } from '@baton/testing';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonProcessor } from './index.ts';

const WINDOW = 200_000;
const STEPS = 45;

/** A Mastra Agent on @ai-sdk/anthropic (Anthropic's wire, a 200k window), reading a 6,000-token file a step. */
async function toolLoop(modelId: string, contextWindow?: number) {
  const wire = anthropicWire({
    contextWindow: WINDOW,
    script: ({ index }) =>
      index < STEPS - 1
        ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
        : { text: 'done' },
  });
  const events: BatonEvent[] = [];
  const memory = new Memory({ storage: new LibSQLStore({ id: `reserve-${modelId}`, url: ':memory:' }) });
  // No model option: the step's model gives the window and the output limit.
  const baton = batonProcessor({
    memory,
    ...(contextWindow ? { contextWindow } : {}),
    onEvent: (e) => events.push(e),
  });
  const agent = new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'Read files.',
    // Mastra 1.71 types V4 models apart from the AI SDK's own (see provider-wire.test.ts).
    model: createAnthropic({ apiKey: 'test-key', fetch: wire.fetch })(modelId) as never,
    tools: {
      read_file: createTool({
        id: 'read_file',
        description: 'Reads a file of the repository',
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => `// ${path}\n${filler(24_000, path.length)}`,
      }),
    },
    memory,
    ...baton.lists,
  });
  // No modelSettings.maxOutputTokens: the package sends its own default.
  const result = await agent.generate('Read every file of src/, then say done.', {
    memory: { thread: 'long-loop', resource: 'user' },
    maxSteps: STEPS,
  });
  return { text: result.steps.at(-1)?.text ?? '', requests: wire.requests, events };
}

const overWindow = (requests: WireRequest[]) =>
  requests.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > WINDOW);

describe('Mastra + @ai-sdk/anthropic on a 200k window with the default output limit', () => {
  it('reserves the 64,000 max_tokens claude-sonnet-4-5 is sent with: within the window in every request', async () => {
    const { text, requests, events } = await toolLoop('claude-sonnet-4-5');
    expect(text).toBe('done');
    expect(requests).toHaveLength(STEPS);
    for (const r of requests) expect(r.maxOutputTokens).toBe(64_000);
    expect(requests.filter((r) => r.refused)).toEqual([]);
    expect(overWindow(requests)).toEqual([]);
    for (const r of requests) expect(anthropicRuleViolations(r.body)).toEqual([]);
    expect(events.some((e) => e.type === 'stage-completed')).toBe(true);
    expect(Math.max(...requests.map((r) => r.inputTokens))).toBeGreaterThan(100_000);
  }, 120_000);

  it("lowers claude-sonnet-4-6's 128,000 through the step's modelSettings, told once", async () => {
    const { text, requests, events } = await toolLoop('claude-sonnet-4-6', WINDOW);
    expect(text).toBe('done');
    for (const r of requests) expect(r.maxOutputTokens).toBe(16_384);
    expect(requests.filter((r) => r.refused)).toEqual([]);
    expect(overWindow(requests)).toEqual([]);
    expect(events.filter((e) => e.type === 'output-limit-capped')).toMatchObject([
      { requested: 128_000, reserved: 16_384, applied: true },
    ]);
  }, 120_000);
});

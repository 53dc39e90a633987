import { createAnthropic } from '@ai-sdk/anthropic';
import { anthropicCount, anthropicWire, filler, type WireBody } from '@baton/testing';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonProcessor } from './index.ts';

const CONTEXT_WINDOW = 24_000;
const MAX_OUTPUT_TOKENS = 1024;
const STEPS = 40;

/**
 * A provider whose tokenizer counts twice what Baton's does (a model far from o200k, e.g. on
 * non-English text): only its reported usage tells Baton how full the window really is.
 */
const doubled = (body: WireBody) => 2 * anthropicCount(body);

describe('a Mastra Agent with batonProcessor calibrates from the usage @ai-sdk/anthropic reports', () => {
  it("compacts at the provider's count, not its own: no request of a 40-step tool loop is refused", async () => {
    const wire = anthropicWire({
      contextWindow: CONTEXT_WINDOW,
      count: doubled,
      // Read a file per step, then answer; a request without tools (a summary) gets text.
      script: ({ index, body }) =>
        body.tools === undefined || index >= STEPS
          ? { text: 'The handler is in src/route.ts.' }
          : { calls: [{ name: 'read_file', input: { path: `src/module${index}.ts` } }] },
    });
    const events: BatonEvent[] = [];
    const baton = batonProcessor({ contextWindow: CONTEXT_WINDOW, onEvent: (e) => events.push(e) });
    const agent = new Agent({
      id: 'calibration',
      name: 'calibration',
      instructions: 'You are a coding agent. Read files, then answer.',
      // Mastra types its V4 model with doGenerate returning a stream result; at run time it takes it as is.
      model: createAnthropic({ apiKey: 'test-key', fetch: wire.fetch })('claude-sonnet-4-5') as never,
      tools: {
        read_file: createTool({
          id: 'read_file',
          description: 'Read a file of the repository',
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => `${path}\n${filler(1_400, path.length)}`,
        }),
      },
      ...baton.lists,
    });
    const result = await agent.generate('Find where requests are routed.', {
      maxSteps: STEPS + 1,
      modelSettings: { maxOutputTokens: MAX_OUTPUT_TOKENS },
    });
    expect(result.steps.at(-1)?.text).toBe('The handler is in src/route.ts.');

    const budget = CONTEXT_WINDOW - MAX_OUTPUT_TOKENS;
    // Baton compacted, and before the provider ever refused: with its own count (half the
    // provider's) it would reach compactAt only past the window, where an overflow stops it.
    expect(events.filter((e) => e.type === 'stage-completed').length).toBeGreaterThan(0);
    expect(wire.requests.filter((r) => r.refused).map((r) => r.inputTokens)).toEqual([]);
    // Every request stays under the budget as the provider counts it, though Baton's own count
    // never came near compactAt: its decisions followed the reported count.
    expect(Math.max(...wire.requests.map((r) => r.inputTokens))).toBeLessThanOrEqual(budget);
    expect(Math.max(...wire.requests.map((r) => r.inputTokens / 2))).toBeLessThan(0.8 * budget);
  });
});

import { anthropicCount, anthropicWire, filler, type WireBody } from '@baton/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import { type AIMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonMiddleware } from './index.ts';

const CONTEXT_WINDOW = 24_000;
const MAX_TOKENS = 1024;
const STEPS = 40;

/**
 * A provider whose tokenizer counts twice what Baton's does (a model far from o200k, e.g. on
 * non-English text): only its reported usage tells Baton how full the window really is.
 */
const doubled = (body: WireBody) => 2 * anthropicCount(body);

describe('createAgent + batonMiddleware calibrate from the usage @langchain/anthropic reports', () => {
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
    const graph = createAgent({
      model: new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'test-key',
        maxTokens: MAX_TOKENS,
        clientOptions: { fetch: wire.fetch },
      }),
      tools: [
        tool(async ({ path }: { path: string }) => `${path}\n${filler(1_400, path.length)}`, {
          name: 'read_file',
          description: 'Read a file of the repository',
          schema: z.object({ path: z.string() }),
        }),
      ],
      middleware: [batonMiddleware({ contextWindow: CONTEXT_WINDOW, onEvent: (e) => events.push(e) })],
      checkpointer: new MemorySaver(),
      store: new InMemoryStore(),
      systemPrompt: 'You are a coding agent. Read files, then answer.',
    });
    const state = await graph.invoke(
      { messages: [new HumanMessage('Find where requests are routed.')] },
      { configurable: { thread_id: 'calibration' }, recursionLimit: 200 },
    );
    expect((state.messages.at(-1) as AIMessage).text).toBe('The handler is in src/route.ts.');

    const budget = CONTEXT_WINDOW - MAX_TOKENS;
    const compactions = events.filter((e) => e.type === 'stage-completed');
    // Baton compacted, and before the provider ever refused: with its own count (half the
    // provider's) it would first reach compactAt past the window, and only an overflow would stop it.
    expect(compactions.length).toBeGreaterThan(0);
    expect(wire.requests.filter((r) => r.refused).map((r) => r.inputTokens)).toEqual([]);
    // Every request stays under the budget as the provider counts it, and the loop grew well past
    // what Baton's own count would call full: its decisions followed the reported count.
    expect(Math.max(...wire.requests.map((r) => r.inputTokens))).toBeLessThanOrEqual(budget);
    const ownCounts = wire.requests.map((r) => r.inputTokens / 2);
    expect(Math.max(...ownCounts)).toBeLessThan(0.8 * budget);
  });
});

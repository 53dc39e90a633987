import { anthropicWire, filler } from '@baton/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import { type AIMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver, type Operation, type OperationResults } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonMiddleware } from './index.ts';

const STALL_MS = 1_500;

/**
 * A LangGraph store whose backend stalls (a saturated connection): every batch answers after
 * 1.5 s. One that never answers cannot be tested through a graph: LangGraph's own batched
 * wrapper waits for its operations when the run stops, whatever Baton does.
 */
class StalledStore extends InMemoryStore {
  override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    await new Promise((resolve) => setTimeout(resolve, STALL_MS));
    return super.batch(operations);
  }
}

describe('createAgent + batonMiddleware on a LangGraph store that stalls', () => {
  it('every store call Baton waits for fails at storeTimeoutMs: a 5-call run finishes in seconds, each failure an event', {
    timeout: 15_000,
  }, async () => {
    const wire = anthropicWire({
      script: ({ index }) =>
        index >= 4
          ? { text: 'The handler is in src/route.ts.' }
          : { calls: [{ name: 'read_file', input: { path: `src/module${index}.ts` } }] },
    });
    const events: BatonEvent[] = [];
    const graph = createAgent({
      model: new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'test-key',
        maxTokens: 1024,
        clientOptions: { fetch: wire.fetch },
      }),
      tools: [
        tool(async ({ path }: { path: string }) => `${path}\n${filler(1_400, path.length)}`, {
          name: 'read_file',
          description: 'Read a file of the repository',
          schema: z.object({ path: z.string() }),
        }),
      ],
      middleware: [
        batonMiddleware({ contextWindow: 200_000, storeTimeoutMs: 100, onEvent: (e) => events.push(e) }),
      ],
      checkpointer: new MemorySaver(),
      store: new StalledStore(),
    });
    const state = await graph.invoke(
      { messages: [new HumanMessage('Find where requests are routed.')] },
      { configurable: { thread_id: 'hung-store' } },
    );
    expect((state.messages.at(-1) as AIMessage).text).toBe('The handler is in src/route.ts.');
    expect(wire.requests).toHaveLength(5);
    const failed = events.filter((e) => e.type === 'store-failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const event of failed) expect(event.error).toMatch(/timed out after 100 ms/);
  });
});

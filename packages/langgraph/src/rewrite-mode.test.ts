import { BatonConfigError, gptTokenizer, TokenCounter } from '@baton/core';
import { pairingViolation } from '@baton/core/internals';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware, langGraphStore, toEntries } from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);
const body = (n: number) =>
  Array.from({ length: 60 }, (_, l) => `line ${l}: value_${(n * 31 + l) % 97}`).join('\n');
const readFile = tool(async ({ n }: { n: number }) => `file ${n}\n${body(n)}`, {
  name: 'read_file',
  description: 'Read file n',
  schema: z.object({ n: z.number() }),
});

describe("batonMiddleware({ mode: 'rewrite' })", () => {
  it('compacts the checkpointed state in beforeModel, archives first, and tells the model what was evicted', async () => {
    const seen: BaseMessage[][] = [];
    let step = 0;
    const model = fakeModel();
    for (let i = 0; i < 40; i++) {
      model.respond((messages: BaseMessage[]) => {
        seen.push(messages);
        const s = step++;
        if (s >= 30) return new AIMessage('done');
        return new AIMessage({
          content: '',
          tool_calls: [{ id: `c${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
        });
      });
    }
    const store = new InMemoryStore();
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [batonMiddleware({ contextWindow: 8_000, mode: 'rewrite' })],
      checkpointer: new MemorySaver(),
      store,
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Read 30 files.')] },
      { configurable: { thread_id: 'rw' }, recursionLimit: 500 },
    );

    expect(result.messages.at(-1)!.text).toBe('done');
    // The state itself is compacted (view mode would keep 1 + 30 * 2 + 1 messages).
    expect(result.messages.length).toBeLessThan(1 + 30 * 2 + 1);
    for (const messages of seen) {
      const entries = toEntries(messages);
      expect(entries.reduce((sum, e) => sum + counter.raw(e), 0)).toBeLessThanOrEqual(8_000 - 1_600);
      expect(pairingViolation(entries.filter((e) => e.role !== 'system'))).toBeUndefined();
    }
    // The model was told, once, in the system prompt of the call after the rewrite.
    const told = seen.filter((messages) =>
      messages.some((m) => m.type === 'system' && m.text.includes('Context was compacted')),
    );
    expect(told.length).toBeGreaterThan(0);
    // Evicted results are in the graph's store, verbatim.
    const archived = await langGraphStore(store).searchArchive('rw', 'file 2\n', 10);
    expect(
      archived.some((r) => JSON.stringify(r.entry.parts).includes(JSON.stringify(body(2)).slice(1, -1))),
    ).toBe(true);
  });

  it('carries the notices in private checkpointed state: a fresh worker resuming after the rewrite tells the model', async () => {
    const checkpointer = new MemorySaver();
    const store = new InMemoryStore();
    const config = { configurable: { thread_id: 'carry' }, recursionLimit: 500 };
    // One script across both workers: the model continues where the thread left off.
    const script = { step: 0 };
    const readAll = (model: ReturnType<typeof fakeModel>, seen?: BaseMessage[][]) => {
      for (let i = 0; i < 40; i++) {
        model.respond((messages: BaseMessage[]) => {
          seen?.push(messages);
          const s = script.step++;
          if (s >= 30) return new AIMessage('done');
          return new AIMessage({
            content: '',
            tool_calls: [{ id: `c${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
          });
        });
      }
      return model;
    };
    type Values = { messages: BaseMessage[]; _batonNotices?: Array<{ type: string; text: string }> };
    const stateOf = async (worker: { graph: { getState(c: typeof config): Promise<{ values: unknown }> } }) =>
      (await worker.graph.getState(config)).values as Values;
    const agent = (model: ReturnType<typeof fakeModel>) =>
      createAgent({
        model,
        tools: [readFile],
        middleware: [batonMiddleware({ contextWindow: 8_000, mode: 'rewrite' })],
        checkpointer,
        store,
      });

    // Worker A runs until a beforeModel has rewritten the state, and stops right there.
    const workerA = agent(readAll(fakeModel()));
    let pending: Array<{ type: string; text: string }> = [];
    for (let i = 0; i < 60 && !pending.some((n) => n.type === 'eviction'); i++) {
      await workerA.graph.invoke(i === 0 ? { messages: [new HumanMessage('Read 30 files.')] } : null, {
        ...config,
        interruptAfter: ['BatonMiddleware.before_model'],
      });
      pending = (await stateOf(workerA))._batonNotices ?? [];
    }
    expect(pending.map((n) => n.type)).toContain('eviction');

    // Worker B (a new middleware instance: nothing in memory) makes the model call.
    const seen: BaseMessage[][] = [];
    const workerB = agent(readAll(fakeModel(), seen));
    const result = await workerB.invoke(null, config);
    expect(seen[0]?.find((m) => m.type === 'system')?.text).toContain('Context was compacted');
    expect(result.messages.at(-1)!.text).toBe('done');
    // Private: not in the agent's output, and cleared in the checkpoint once the model saw it.
    expect(Object.keys(result)).not.toContain('_batonNotices');
    expect((await stateOf(workerB))._batonNotices).toEqual([]);
  });

  it('rejects an unknown mode with a typed error', () => {
    expect(() => batonMiddleware({ contextWindow: 8_000, mode: 'both' as never })).toThrow(BatonConfigError);
    expect(() => batonMiddleware({ contextWindow: 8_000, mode: 'both' as never })).toThrow(
      /mode: expected 'view' or 'rewrite'/,
    );
  });
});

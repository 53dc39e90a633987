import type { BatonEvent } from '@baton/core';
import { filler, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { batonProcessor, memoryStore } from './index.ts';
import { mastraMemoryStore } from './memory-store.ts';

/** One chat thread with memory: each message a turn of its own (`generate`). */
async function converse(
  setup: {
    model: ReturnType<typeof scriptedModel>['model'];
    memory: Memory;
    baton: ReturnType<typeof batonProcessor>;
    thread: string;
  },
  messages: readonly string[],
): Promise<void> {
  const { model, memory, baton, thread } = setup;
  const agent = new Agent({
    id: 'chat',
    name: 'chat',
    instructions: 'Answer briefly.',
    model,
    memory,
    ...baton.lists,
  });
  for (const message of messages) await agent.generate(message, { memory: { thread, resource: 'user' } });
}

describe("Mastra's lastMessages window sliding under Baton", () => {
  it('keeps its decisions as the window drops old messages: each evicted message archived once, compactions occasional', async () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `sliding-${Math.random()}`, url: ':memory:' }),
      options: { lastMessages: 12 },
    });
    const store = memoryStore();
    const events: BatonEvent[] = [];
    const baton = batonProcessor({ contextWindow: 6_000, store, onEvent: (event) => events.push(event) });
    const { model, calls } = scriptedModel(({ call }) => ({
      text: `answer ${call}: ${filler(1_200, call)}`,
    }));
    await converse(
      { model, memory, baton, thread: 'sliding' },
      Array.from({ length: 16 }, (_, turn) => `question ${turn}: ${filler(2_400, turn + 100)}`),
    );
    expect(calls).toHaveLength(16);
    const archived = await store.rangeArchive('sliding', 0, 1_000_000);
    const contents = archived.map((record) => JSON.stringify(record.entry.parts));
    // Each evicted message is archived once, under one ref, however often the window slid.
    expect(contents.length).toBeGreaterThan(0);
    expect(new Set(contents).size).toBe(contents.length);
    // Measured: 24 records, all distinct, 6 stage runs; keyed by position, 80 records of 26 messages.
    const compactions = events.filter((e) => e.type === 'stage-completed').length;
    expect(compactions).toBeLessThan(16);
  });

  it('archives what slides out of the window, so recall reaches turns older than lastMessages', async () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `beyond-${Math.random()}`, url: ':memory:' }),
      options: { lastMessages: 4 },
    });
    const baton = batonProcessor({ contextWindow: 128_000, memory });
    const { model, calls } = scriptedModel(({ call }) => ({ text: `noted ${call}` }));
    await converse(
      { model, memory, baton, thread: 'beyond' },
      Array.from({ length: 8 }, (_, turn) => `fact MARK-${turn}: the code is ${1_000 + turn}`),
    );
    // The window really slid: the last call no longer carries the first turns.
    expect(calls.at(-1)?.visible).not.toContain('MARK-1:');
    const session = baton.session('beyond');
    const recall = session.tools.find((tool) => tool.name === 'recall')!;
    const found = JSON.stringify(await recall.execute({ query: 'MARK-1' }));
    expect(found).toContain('the code is 1001');
    // Nothing the ladder did: the window is large, so every record came from the slide.
    expect((await session.archive.range(0, 1_000_000)).every((r) => r.stage === 'host-window')).toBe(true);
    // Kept in the Memory's own storage (no store was given): a new handle on it finds the record.
    expect(await mastraMemoryStore(memory).searchArchive('beyond', 'MARK-1', 5)).toHaveLength(1);
  });
});

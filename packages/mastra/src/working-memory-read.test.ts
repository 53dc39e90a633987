import type { BatonEvent } from '@baton/core';
import { filler, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonProcessor } from './index.ts';

const readFile = createTool({
  id: 'read_file',
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `${path}\n${filler(2_400, path.length)}`,
});

describe("Mastra's working memory under the store deadline", () => {
  it('a working-memory read that never answers fails open at a compaction: the run finishes, the read is reported, the run keeps what it showed', {
    timeout: 20_000,
  }, async () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `wm-hang-${Math.random()}`, url: ':memory:' }),
      options: { workingMemory: { enabled: true, scope: 'thread' } },
    });
    // From the compact call on, the memory's storage never answers a working-memory read.
    let hung = false;
    const read = memory.getWorkingMemory.bind(memory);
    memory.getWorkingMemory = ((args: Parameters<typeof read>[0]) =>
      hung ? new Promise<never>(() => {}) : read(args)) as typeof memory.getWorkingMemory;
    const events: BatonEvent[] = [];
    const baton = batonProcessor({
      contextWindow: 16_000,
      memory,
      storeTimeoutMs: 300,
      onEvent: (e) => events.push(e),
    });
    const { model, calls } = scriptedModel(({ call }) => {
      if (call === 1)
        return { calls: [{ name: 'updateWorkingMemory', input: { memory: '## goal\nWM-AFTER-UPDATE' } }] };
      if (call === 8) {
        hung = true;
        return { calls: [{ name: 'compact', input: { instruction: 'keep the goal' } }] };
      }
      if (call >= 11) return { text: 'ok' };
      return { calls: [{ name: 'read_file', input: { path: `f${call}.ts` } }] };
    });
    const agent = new Agent({
      id: 'wm-hang',
      name: 'wm-hang',
      instructions: 'Fix tests.',
      model,
      tools: { read_file: readFile },
      memory,
      ...baton.lists,
    });
    const result = await agent.generate('Fix the flaky test.', {
      memory: { thread: 'wm-hang', resource: 'dev' },
      maxSteps: 14,
    });
    expect(result.steps.at(-1)?.text).toBe('ok');
    // Call 9 compacted (the compact tool) while working memory could not be read: the step went
    // on with the working memory the run showed, and the failed read is an event.
    expect(calls[9]!.trailer).toContain('Context was compacted');
    expect(calls[9]!.system).not.toContain('WM-AFTER-UPDATE');
    expect(calls[10]!.system).toBe(calls[9]!.system);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'store-failed',
        operation: 'getWorkingMemory',
        error: expect.stringMatching(/working memory read timed out after 300 ms/),
        sessionId: 'wm-hang',
      }),
    );
  });
});

import { contextLengthError, filler, type ScriptedTurn, scriptedModel } from '@baton/testing/mastra';
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
  execute: async ({ path }) => `${path}\n${filler(1_500, path.length)}`,
});

function setup(rejectAt: (call: number) => boolean) {
  const memory = new Memory({
    storage: new LibSQLStore({ id: `overflow-${Math.random()}`, url: ':memory:' }),
  });
  const baton = batonProcessor({ contextWindow: 32_000, memory });
  const { model, calls } = scriptedModel(({ call }): ScriptedTurn => {
    if (rejectAt(call)) return contextLengthError();
    if (call >= 8) return { text: 'all read' };
    return { calls: [{ name: 'read_file', input: { path: `f${call}.ts` } }] };
  });
  const agent = new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'Read files.',
    model,
    tools: { read_file: readFile },
    memory,
    ...baton.lists,
  });
  return { agent, calls, memory, baton };
}

describe('context overflow through processAPIError', () => {
  it('recovers once: compacts harder and retries the same step', async () => {
    const { agent, calls } = setup((call) => call === 5);
    const result = await agent.generate('Read the files.', {
      memory: { thread: 'once', resource: 'r' },
      maxSteps: 12,
    });
    expect(result.text).toBe('all read');
    // The rejected call is retried with a smaller, compacted prompt that says so.
    expect(calls[6]!.visible.length).toBeLessThan(calls[5]!.visible.length);
    expect(calls[6]!.trailer).toContain('Context was compacted');
  });

  for (const mode of ['generate', 'stream'] as const) {
    it(`a second overflow in a row ends the run with a reply naming the checkpoint (${mode}), and the turn is stored`, async () => {
      const { agent, calls, memory, baton } = setup((call) => call === 5 || call === 6);
      const options = { memory: { thread: `twice-${mode}`, resource: 'r' }, maxSteps: 12 };
      const result =
        mode === 'generate'
          ? await agent.generate('Read the files.', options)
          : await (async () => {
              const stream = await agent.stream('Read the files.', options);
              await stream.consumeStream();
              return {
                text: await stream.text,
                tripwire: await stream.tripwire,
                response: await stream.response,
              };
            })();
      expect(calls).toHaveLength(7); // no model call after the second rejection
      expect(result.tripwire).toBeUndefined();
      expect(result.text).toMatch(/^\[baton\] This step was not sent to the model/);
      const unfit = baton.unfitOf(result);
      expect(unfit).toMatchObject({ outcome: 'unfit', sessionId: `twice-${mode}` });
      expect(await baton.session(`twice-${mode}`).readCheckpoint(unfit!.checkpointRef)).toMatchObject({
        reason: expect.stringMatching(/rejected the request as too long twice/),
      });
      // Nothing of the turn is lost: the request and the five tool rounds are in Mastra's storage.
      const stored = await memory.recall({ threadId: `twice-${mode}`, perPage: false });
      const text = JSON.stringify(stored.messages);
      expect(text).toContain('Read the files.');
      for (let i = 0; i < 5; i++) expect(text).toContain(`f${i}.ts`);
      expect(text).toContain('This step was not sent to the model');
      // The stored explanation is for the user: the next turn's prompt does not carry it.
      await agent.generate('Go on.', options);
      expect(calls[7]!.visible).toContain('Go on.');
      expect(calls[7]!.visible).not.toContain('This step was not sent');
    });
  }
});

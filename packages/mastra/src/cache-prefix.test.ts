import {
  compactionTracker,
  EXTERNAL_NOTE,
  EXTERNAL_NOTE_STEP,
  fileBody,
  LOOP_STEPS,
  LOOP_WINDOW,
  type LoopCall,
  loopTurn,
  loopViolations,
} from '@baton/test-support/cache-loop.ts';
import { scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonProcessor } from './index.ts';

/**
 * The cache rule through a Mastra Agent: between compactions each prompt starts with the one
 * before byte for byte (notes writes, warnings and eviction notices included).
 */
describe('prompt caches keep hitting through Mastra', () => {
  it(`a ${LOOP_STEPS}-step loop with notes writes, an outside notes change, warnings and evictions`, async () => {
    const tracker = compactionTracker();
    const memory = new Memory({ storage: new LibSQLStore({ id: 'baton-cache-prefix', url: ':memory:' }) });
    const baton = batonProcessor({ contextWindow: LOOP_WINDOW, memory, onEvent: tracker.onEvent });
    const calls: LoopCall[] = [];
    const seen: Array<{ system: string; trailer: string }> = [];
    const { model } = scriptedModel(({ call, prompt, system, trailer }) => {
      calls.push({ messages: prompt.map((m) => JSON.stringify(m)), compacting: tracker.take() });
      seen.push({ system, trailer });
      return loopTurn(call);
    });
    const readFile = createTool({
      id: 'read_file',
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        // Another worker (or an operator) edits this conversation's notes meanwhile.
        if (path === `src/module_${EXTERNAL_NOTE_STEP}.ts`)
          await baton.session('cache-thread').notes.write('ops', EXTERNAL_NOTE);
        return fileBody(path);
      },
    });
    const agent = new Agent({
      id: 'cache',
      name: 'cache',
      instructions: 'You are a careful engineer.',
      model,
      tools: { read_file: readFile },
      memory,
      ...baton.lists,
    });
    await agent.generate('Read every module, keeping your progress in your notes.', {
      memory: { thread: 'cache-thread', resource: 'dev' },
      maxSteps: LOOP_STEPS,
    });

    expect(loopViolations(calls, seen)).toEqual([]);
  }, 60_000);
});

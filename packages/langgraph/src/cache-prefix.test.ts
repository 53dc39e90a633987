import { NOTICES_HEADING } from '@baton/core/internals';
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
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import type { BaseStore } from '@langchain/langgraph';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware, sessionsFor } from './index.ts';

/** One message as a provider receives it: role, text, tool calls and the call a result answers. */
function serialized(message: BaseMessage): string {
  return JSON.stringify({
    type: message.type,
    text: message.text,
    tool_calls: (message as AIMessage).tool_calls ?? [],
    tool_call_id: (message as ToolMessage).tool_call_id ?? null,
  });
}

/**
 * The cache rule through `createAgent`, in both modes: between compactions each prompt starts
 * with the one before byte for byte (notes writes, warnings and eviction notices included).
 */
describe('prompt caches keep hitting through LangChain createAgent', () => {
  for (const mode of ['view', 'rewrite'] as const)
    it(`a ${LOOP_STEPS}-step loop with notes writes, an outside notes change, warnings and evictions (${mode})`, async () => {
      const tracker = compactionTracker();
      const options = { contextWindow: LOOP_WINDOW, mode, onEvent: tracker.onEvent };
      const calls: LoopCall[] = [];
      const seen: Array<{ system: string; trailer: string }> = [];
      const model = fakeModel();
      for (let step = 0; step < LOOP_STEPS; step++)
        model.respond((messages: BaseMessage[]) => {
          calls.push({ messages: messages.map(serialized), compacting: tracker.take() });
          const last = messages.at(-1)!;
          seen.push({
            system: messages
              .filter((m) => m.type === 'system')
              .map((m) => m.text)
              .join('\n'),
            trailer: last.type === 'human' && last.text.startsWith(NOTICES_HEADING) ? last.text : '',
          });
          const turn = loopTurn(step);
          if ('text' in turn) return new AIMessage(turn.text);
          return new AIMessage({
            content: '',
            tool_calls: turn.calls.map((c, i) => ({
              id: `c${step}-${i}`,
              name: c.name,
              args: c.input as Record<string, unknown>,
              type: 'tool_call' as const,
            })),
          });
        });
      const readFile = tool(
        async ({ path }: { path: string }, runtime: unknown) => {
          if (path === `src/module_${EXTERNAL_NOTE_STEP}.ts`) {
            // Another worker (or an operator) edits this conversation's notes meanwhile.
            // Resolved as Baton's own tools resolve theirs: the run's store, thread and namespace.
            const run = runtime as {
              store?: BaseStore;
              config?: { store?: BaseStore; configurable?: { thread_id?: unknown; checkpoint_ns?: unknown } };
            };
            const configurable = run.config?.configurable;
            const session = sessionsFor(options).session(run.store ?? run.config?.store, {
              threadId: configurable?.thread_id,
              namespace: configurable?.checkpoint_ns,
            });
            await session.notes.write('ops', EXTERNAL_NOTE);
          }
          return fileBody(path);
        },
        { name: 'read_file', description: 'Read a file', schema: z.object({ path: z.string() }) },
      );
      const agent = createAgent({
        model,
        tools: [readFile],
        middleware: [batonMiddleware(options)],
        systemPrompt: 'You are a careful engineer.',
        checkpointer: new MemorySaver(),
        store: new InMemoryStore(),
      });
      await agent.invoke(
        { messages: [new HumanMessage('Read every module, keeping your progress in your notes.')] },
        { configurable: { thread_id: 'cache-thread' }, recursionLimit: 1_000 },
      );

      expect(loopViolations(calls, seen)).toEqual([]);
    });
});

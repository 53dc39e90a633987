import { pathToFileURL } from 'node:url';
import { type Store, sqliteStore } from '@baton/core';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver, BaseStore } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createAgent, fakeModel, tool } from 'langchain';
import { z } from 'zod';
import { batonMiddleware } from '../src/index.ts';

/**
 * A task interrupted by a restart: the first process writes a plan into the notes, reads 20
 * log pages (the one holding the secret gets evicted), and stops; the second process, with
 * nothing in memory, continues the thread and must find the plan in its system prompt and
 * the secret through `recall`.
 */

export const THREAD = { configurable: { thread_id: 'restart' }, recursionLimit: 500 };
export const WINDOW = 8_000;
export const SECRET = '/srv/keys/prod.pem';

const page = (n: number) =>
  `page ${n}\n${n === 1 ? `SECRET-PATH=${SECRET}\n` : ''}${Array.from({ length: 80 }, (_, i) => `log ${n}.${i} ok`).join('\n')}`;
const readLog = tool(async ({ n }: { n: number }) => page(n), {
  name: 'read_log',
  description: 'Read a log page',
  schema: z.object({ n: z.number() }),
});

export interface Persistence {
  checkpointer: BaseCheckpointSaver;
  /** A LangGraph store for the graph, or Baton's own store in the middleware's options. */
  store: { langGraph: BaseStore } | { baton: Store };
}

function agentWith(model: ReturnType<typeof fakeModel>, persistence: Persistence) {
  const baton = 'baton' in persistence.store ? { store: persistence.store.baton } : {};
  return createAgent({
    model,
    tools: [readLog],
    middleware: [batonMiddleware({ contextWindow: WINDOW, ...baton })],
    checkpointer: persistence.checkpointer,
    ...('langGraph' in persistence.store ? { store: persistence.store.langGraph } : {}),
  });
}

export async function firstProcess(persistence: Persistence): Promise<void> {
  const model = fakeModel();
  let step = 0;
  for (let i = 0; i < 30; i++) {
    model.respond(() => {
      const s = step++;
      if (s === 0)
        return new AIMessage({
          content: '',
          tool_calls: [
            {
              id: 'n0',
              name: 'notes',
              args: { action: 'write', section: 'plan', text: 'read 20 pages, then report the key path' },
              type: 'tool_call',
            },
          ],
        });
      if (s > 20) return new AIMessage('paused');
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `r${s}`, name: 'read_log', args: { n: s }, type: 'tool_call' }],
      });
    });
  }
  await agentWith(model, persistence).invoke({ messages: [new HumanMessage('Read the logs.')] }, THREAD);
}

export async function secondProcess(
  persistence: Persistence,
): Promise<{ system: string; seen: string; answer: string; historyLength: number }> {
  let seen: BaseMessage[] = [];
  const model = fakeModel();
  model.respond((messages: BaseMessage[]) => {
    seen = messages;
    return new AIMessage({
      content: '',
      tool_calls: [{ id: 'q', name: 'recall', args: { query: 'SECRET-PATH' }, type: 'tool_call' }],
    });
  });
  model.respond(
    // The recall result is the newest tool message (a notice of this step's compaction may follow it).
    (messages: BaseMessage[]) =>
      new AIMessage(
        `key path: ${/SECRET-PATH=([^\\"]+)/.exec(messages.findLast((m) => m.type === 'tool')?.text ?? '')?.[1]}`,
      ),
  );
  const result = await agentWith(model, persistence).invoke(
    { messages: [new HumanMessage('Continue: where is the key?')] },
    THREAD,
  );
  return {
    system: seen
      .filter((m) => m.type === 'system')
      .map((m) => m.text)
      .join('\n'),
    seen: seen.map((m) => m.text).join('\n'),
    answer: result.messages.at(-1)?.text ?? '',
    historyLength: result.messages.length,
  };
}

/** One SQLite file holds the whole thread: LangGraph's checkpoints and Baton's notes, ledger and archive. */
export function sqlitePersistence(path: string): Persistence & { close(): Promise<void> } {
  const checkpointer = SqliteSaver.fromConnString(path);
  const baton = sqliteStore({ path });
  return {
    checkpointer,
    store: { baton },
    async close() {
      await baton.close();
      checkpointer.db.close();
    },
  };
}

// `node --import tsx restart-scenario.ts <file>`: the first process, which then exits.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = process.argv[2];
  if (!path) throw new Error('usage: restart-scenario.ts <sqlite file>');
  const persistence = sqlitePersistence(path);
  await firstProcess(persistence);
  await persistence.close();
}

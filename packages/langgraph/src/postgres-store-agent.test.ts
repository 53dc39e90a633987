import { existsSync, readFileSync } from 'node:fs';
import type { BatonEvent, OpenAIMessage } from '@baton/core';
import { toLangChainMessages } from '@baton/test-support/bench-histories.ts';
import type {} from '@baton/test-support/postgres-server.ts'; // its ProvidedContext
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { SESSIONS_DIR } from '@baton/test-support/transcripts.ts';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { createAgent, fakeModel } from 'langchain';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { batonMiddleware } from './index.ts';
import { langGraphStore } from './langgraph-store.ts';

// What a LangGraph platform deployment runs: createAgent with PostgresStore as the graph's
// store, a thread id with an underscore, and the two smolagents sessions, whose tool results
// carry PDF bytes (NUL included). Before the bridge escaped labels and encoded NUL, every
// archive write failed here (store-failed) and steps ended as Baton's "does not fit" reply.
const url = inject('postgresUrl') || undefined;
const sessions = ['research-smolagents-toolcalling-gaia', 'data-smolagents-codeagent-gaia'];
const haveSessions = sessions.every((name) => existsSync(`${SESSIONS_DIR}${name}.openai.json`));

const backends: PostgresStore[] = [];
afterAll(async () => {
  for (const backend of backends) await backend.stop();
});

describe.skipIf(
  skipUnless(Boolean(url), "a PostgreSQL server (BATON_PG_URL, or Debian's postgresql to start one)") ||
    skipUnless(haveSessions, `the smolagents sessions in ${SESSIONS_DIR}`),
)('createAgent on LangGraph PostgresStore, thread user_42', () => {
  it.each(sessions)(
    '%s: every step reaches the model, nothing fails to store, recall is byte-exact',
    async (name) => {
      const store = PostgresStore.fromConnString(url as string, { schema: 'langgraph_agent' });
      backends.push(store);
      const messages = toLangChainMessages(
        (
          JSON.parse(readFileSync(`${SESSIONS_DIR}${name}.openai.json`, 'utf8')) as {
            messages: OpenAIMessage[];
          }
        ).messages,
      );
      const events: BatonEvent[] = [];
      // A window the sessions outgrow (45.7k and 35.3k tokens), so Baton archives as it goes.
      const middleware = batonMiddleware({ contextWindow: 16_000, onEvent: (event) => events.push(event) });
      const threadId = `user_42-${name}-${Date.now()}`;
      let steps = 0;
      let modelCalls = 0;
      let unfit = 0;
      // One model call before every assistant message, with the history up to it (view mode).
      for (let i = 1; i < messages.length; i++) {
        if (messages[i]?.type !== 'ai') continue;
        steps++;
        const model = fakeModel();
        model.respond((_sent: BaseMessage[]) => {
          modelCalls++;
          return new AIMessage('ok');
        });
        const agent = createAgent({ model, tools: [], middleware: [middleware], store });
        const result = await agent.invoke(
          { messages: messages.slice(0, i) },
          { configurable: { thread_id: threadId } },
        );
        const last = result.messages.at(-1) as BaseMessage;
        if ((last.response_metadata as { baton?: { outcome?: string } })?.baton?.outcome === 'unfit') unfit++;
      }
      expect(steps).toBeGreaterThan(4);
      expect(events.filter((e) => e.type === 'store-failed')).toEqual([]);
      expect(unfit).toBe(0);
      expect(modelCalls).toBe(steps);

      // What Baton archived is in PostgresStore under this thread only, and comes back byte-exact,
      // NUL bytes of the PDF included.
      const archive = langGraphStore(store);
      const records = await archive.rangeArchive(threadId, 0, 1_000_000);
      expect(records.length).toBeGreaterThan(0);
      const withNul = records.filter((r) => JSON.stringify(r.entry).includes('\\u0000'));
      if (name === 'research-smolagents-toolcalling-gaia') expect(withNul.length).toBeGreaterThan(0);
      for (const record of withNul) expect(await archive.getArchive(threadId, record.ref)).toEqual(record);
    },
  );
});

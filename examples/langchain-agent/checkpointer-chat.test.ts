/**
 * The checkpointer-chat recipe over a long conversation: 26 user turns on one thread at a
 * 10,000-token window, the first a pasted document larger than the whole input budget, some
 * turns calling an app tool, half of them streamed, and a process restart after turn 13.
 * The model is langchain's `fakeModel()`, scripted to act only on the messages it receives.
 */
import { type BatonEvent, gptTokenizer, TokenCounter, toEntries, UNFIT_STEP_PREFIX } from '@baton/langgraph';
import type {} from '@baton/test-support/postgres-server.ts'; // its ProvidedContext
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { filler, isNoticesText } from '@baton/testing';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { type BaseCheckpointSaver, type BaseStore, InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { fakeModel, tool } from 'langchain';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createChat } from './checkpointer-chat.ts';

const WINDOW = 10_000;
/** Baton's default reserveOutput for a window this size is 20% of it. */
const INPUT_BUDGET = WINDOW - 2_000;
const TURNS = 26;
const RESTART_AFTER = 13;
const LOOKUP_TURNS = new Set([3, 6, 9, 12, 16, 19, 22, 25]);
const RECALL_TURN = 24;
/** The agent keeps the user's name in Baton's notes before the restart and answers from them after. */
const REMEMBER_TURN = 5;
const ASK_NAME_TURN = 20;
const UNFIT_PREFIX = UNFIT_STEP_PREFIX;

const MARKER = 'The vault code for Project Heron is 7351-KESTREL.';
const DOCUMENT = `${filler(23_500, 11)}\n\n${MARKER}\n\n${filler(23_500, 12)}`;

function userMessage(turn: number): string {
  if (turn === 1) return `Here is our incident log export:\n\n${DOCUMENT}\n\nWhat is this document about?`;
  if (turn === REMEMBER_TURN) return 'Please remember that my name is Ada.';
  if (turn === ASK_NAME_TURN) return 'What is my name?';
  if (turn === RECALL_TURN) return 'What was the vault code in the document I pasted at the start?';
  if (LOOKUP_TURNS.has(turn)) return `Look up the runbook for service-${turn}.`;
  return `what is ${turn}+${turn * 2}?`;
}

function expectedReply(turn: number): string {
  if (turn === 1) return 'An incident log export.';
  if (turn === REMEMBER_TURN) return 'Noted.';
  if (turn === ASK_NAME_TURN) return 'Your name is Ada.';
  if (turn === RECALL_TURN) return 'The vault code is 7351-KESTREL.';
  if (LOOKUP_TURNS.has(turn)) return `Runbook summary: service-${turn}.`;
  return `${turn * 3}`;
}
/** The model calls a tool (lookup, notes, recall) before answering: one more model call. */
const usesTool = (turn: number) => LOOKUP_TURNS.has(turn) || turn === REMEMBER_TURN || turn === RECALL_TURN;
const TOOL_TURNS = Array.from({ length: TURNS }, (_, i) => i + 1).filter(usesTool).length;

const lookup = tool(async ({ topic }: { topic: string }) => `${topic}\n${filler(7_000, topic.length)}`, {
  name: 'lookup',
  description: 'Look up an internal runbook',
  schema: z.object({ topic: z.string() }),
});

/**
 * One process's model: replies are decided from what the model is sent, never from the
 * test's bookkeeping, so a projection that lost the request would show in the answers.
 */
function scriptedModel(process: string) {
  const model = fakeModel();
  const bound: Array<{ name?: string; description?: string; schema?: unknown }> = [];
  const bindTools = model.bindTools.bind(model);
  model.bindTools = (tools) => {
    bound.splice(0, bound.length, ...(tools as typeof bound));
    return bindTools(tools);
  };
  let step = 0;
  const call = (name: string, args: Record<string, unknown>) =>
    new AIMessage({ content: '', tool_calls: [{ id: `${process}-${step}`, name, args, type: 'tool_call' }] });
  for (let i = 0; i < 40; i++) {
    model.respond((sent: BaseMessage[]) => {
      step++;
      // Baton's notices come after the conversation, as a last human message of their own.
      const messages = isNoticesText(sent.at(-1)!.text) ? sent.slice(0, -1) : sent;
      const last = messages.at(-1)!;
      if (last.type === 'tool' && last.name === 'recall')
        return new AIMessage(
          `The vault code is ${/Project Heron is ([\w-]+)/.exec(last.text)?.[1] ?? 'unknown'}.`,
        );
      if (last.type === 'tool' && last.name === 'notes') return new AIMessage('Noted.');
      if (last.type === 'tool') return new AIMessage(`Runbook summary: ${last.text.split('\n')[0]}.`);
      const ask = last.text;
      if (ask.endsWith('What is this document about?')) return new AIMessage('An incident log export.');
      if (ask.startsWith('Look up the runbook for ')) return call('lookup', { topic: ask.slice(24, -1) });
      if (ask.startsWith('Please remember that my name is '))
        return call('notes', { action: 'write', section: 'user', text: `name: ${ask.slice(32, -1)}` });
      if (ask === 'What is my name?') {
        // Only the system prompt: the notes Baton renders there, not the old tool call.
        const system = messages.filter((m) => m.type === 'system').map((m) => m.text);
        return new AIMessage(
          `Your name is ${/name: (\w+)/.exec(system.join('\n'))?.[1] ?? 'unknown to me'}.`,
        );
      }
      if (ask.includes('vault code')) return call('recall', { query: 'vault code for Project Heron' });
      const sum = /what is (\d+)\+(\d+)\?/.exec(ask);
      if (sum) return new AIMessage(`${Number(sum[1]) + Number(sum[2])}`);
      return new AIMessage('I did not get a question.');
    });
  }
  return { model, bound };
}

interface Persistence {
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  thread: string;
}

/**
 * 26 turns, a 9.6k-token paste and a restart at a 10k window: every call fits, history
 * complete, the paste recallable.
 */
async function runRecipe({ checkpointer, store, thread: THREAD }: Persistence): Promise<void> {
  {
    const counter = new TokenCounter(gptTokenizer(), 512);
    expect(counter.rawText(DOCUMENT)).toBeGreaterThan(9_300);
    expect(counter.rawText(DOCUMENT)).toBeLessThan(9_900);

    // A restarted process reconnects to the same checkpointer and store. Nothing else crosses
    // the restart (model, middleware and agent are new).
    const events: BatonEvent[] = [];
    const processes = [scriptedModel('p1'), scriptedModel('p2')];
    const open = (p: (typeof processes)[number]) =>
      createChat({
        model: p.model,
        checkpointer,
        store,
        contextWindow: WINDOW,
        tools: [lookup],
        systemPrompt: 'You are the support assistant.',
        onEvent: (event) => events.push(event),
      });

    let chat = open(processes[0]!);
    const replies: string[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      if (turn === RESTART_AFTER + 1) chat = open(processes[1]!);
      const streamed: BaseMessage[] = [];
      const result = await chat.send(
        THREAD,
        userMessage(turn),
        turn % 2 === 0 ? { onMessage: (m) => streamed.push(m) } : {},
      );
      expect(result.unfit, `turn ${turn}`).toBe(false);
      expect(result.reply.startsWith(UNFIT_PREFIX), `turn ${turn}`).toBe(false);
      if (turn % 2 === 0) {
        expect(streamed.map((m) => m.type)).toEqual(usesTool(turn) ? ['ai', 'tool', 'ai'] : ['ai']);
        expect(streamed.at(-1)!.text).toBe(result.reply);
      }
      replies.push(result.reply);
    }

    // Every turn was answered from what the model was sent, the name from the notes after the restart.
    expect(replies).toEqual(Array.from({ length: TURNS }, (_, i) => expectedReply(i + 1)));

    // What crossed the boundary: the messages the fake model recorded for each call, counted
    // with Baton's exported TokenCounter (o200k, exact BPE), plus the JSON schemas of the tools
    // bound to the model and the per-request framing Baton's budget uses.
    const calls = processes.flatMap((p) =>
      p.model.calls.map((c) => ({ messages: c.messages, bound: p.bound })),
    );
    expect(calls).toHaveLength(TURNS + TOOL_TURNS);
    const sizes = calls.map(({ messages, bound }) => {
      const tools = counter.rawTools(
        bound.map((t) => ({
          name: t.name ?? 'tool',
          description: t.description,
          inputSchema: toJsonSchema(t.schema as Parameters<typeof toJsonSchema>[0]),
        })),
      );
      return 3 + tools + toEntries(messages).reduce((sum, e) => sum + counter.raw(e), 0);
    });
    expect(Math.max(...sizes)).toBeLessThanOrEqual(INPUT_BUDGET);

    // The restart cost no cache write: the new process's first prompt starts with the old
    // process's last one (same ledger from the store, same projection).
    const lastBefore = processes[0]!.model.calls.at(-1)!.messages.map((m) => m.text);
    const firstAfter = processes[1]!.model.calls[0]!.messages.map((m) => m.text);
    expect(firstAfter.slice(0, lastBefore.length)).toEqual(lastBefore);

    // The marker reached the model only as the result of its recall, verbatim.
    // The conversation each call was sent, without Baton's trailing notices.
    const conversationOf = (messages: BaseMessage[]) =>
      isNoticesText(messages.at(-1)!.text) ? messages.slice(0, -1) : messages;
    const recallIndex = calls.findIndex(({ messages }) => {
      const last = conversationOf(messages).at(-1)!;
      return last.type === 'tool' && last.name === 'recall';
    });
    expect(recallIndex).toBeGreaterThan(0);
    const recalled = conversationOf(calls[recallIndex]!.messages).at(-1)!.text;
    expect(recalled).toContain(MARKER);
    const { content } = JSON.parse(recalled) as { content: string };
    // The excerpt around the match, its cut markers aside, is a slice of the pasted message.
    const body = content
      .split('\n')
      .filter((line) => !line.startsWith('[… ') && !line.startsWith('=== '))
      .join('\n');
    expect(body.length).toBeGreaterThan(1_000);
    expect(userMessage(1)).toContain(body);
    for (const { messages } of calls.slice(0, recallIndex))
      expect(messages.map((m) => m.text).join('\n')).not.toContain('7351-KESTREL');

    // View mode (the middleware's default): the checkpoint holds the whole thread, every user
    // message byte for byte, the 9.6k-token paste included.
    const checkpoint = await checkpointer.getTuple({ configurable: { thread_id: THREAD } });
    const thread = checkpoint!.checkpoint.channel_values.messages as BaseMessage[];
    expect(thread.filter((m) => m.type === 'human').map((m) => m.text)).toEqual(
      Array.from({ length: TURNS }, (_, i) => userMessage(i + 1)),
    );
    expect(thread).toHaveLength(2 * TURNS + 2 * TOOL_TURNS);

    // The paste was shown as a head/tail preview from the first call on.
    expect(events.find((e) => e.type === 'stage-completed')).toMatchObject({
      stage: 'degrade',
      seqRange: [0, 0],
    });
    expect(
      events.filter(
        (e) => e.type === 'budget-exceeded' || e.type === 'store-fallback' || e.type === 'store-failed',
      ),
    ).toEqual([]);
  }
}

describe('checkpointer chat recipe', () => {
  it('26 turns on MemorySaver and InMemoryStore (stand-ins for a database)', async () => {
    await runRecipe({ checkpointer: new MemorySaver(), store: new InMemoryStore(), thread: 'user-42' });
  }, 60_000);

  // What the LangGraph platform runs: both on PostgreSQL. The thread id holds an underscore,
  // which PostgresStore refuses in a namespace label: Baton escapes it.
  const url = inject('postgresUrl') || undefined;
  it.skipIf(
    skipUnless(Boolean(url), "a PostgreSQL server (BATON_PG_URL, or Debian's postgresql to start one)"),
  )(
    '26 turns on PostgresSaver and PostgresStore, thread user_42',
    async () => {
      const schema = `recipe_${process.pid}`;
      const checkpointer = PostgresSaver.fromConnString(url as string, { schema });
      await checkpointer.setup();
      const store = PostgresStore.fromConnString(url as string, { schema });
      try {
        await runRecipe({ checkpointer, store, thread: 'user_42' });
      } finally {
        await store.stop();
        await checkpointer.end();
      }
    },
    120_000,
  );
});

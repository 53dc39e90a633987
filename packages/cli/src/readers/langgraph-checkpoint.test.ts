import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type Entry, sqliteStore } from '@baton/core';
import { AIMessage, type BaseMessage, HumanMessage, type ToolCall } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import {
  END,
  interrupt,
  MessagesAnnotation,
  MessagesDeltaValue,
  Send,
  START,
  StateGraph,
  StateSchema,
} from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readSession } from '../formats.ts';
import { filePage, pngBase64, runCli, scratchDir } from './fixtures.test-support.ts';
import { langChainEntries } from './langchain-messages.ts';
import { langgraphCheckpointReader } from './langgraph-checkpoint.ts';
import { sessionFile } from './session-file.ts';

const dir = scratchDir('langgraph-reader');

const SCREENSHOT = `data:image/png;base64,${pngBase64(1536, 1024)}`;

const readFile = tool(async ({ path }: { path: string }) => filePage(path), {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});
const deploy = tool(async ({ env }: { env: string }) => `deployed to ${env}`, {
  name: 'deploy',
  description: 'Deploy the build',
  schema: z.object({ env: z.string() }),
});

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  args,
  type: 'tool_call',
});

/**
 * A ReAct graph whose tool calls run as parallel `Send` tasks (so one tool can pause for
 * approval while its siblings have written their results), checkpointed by `saver`.
 */
function agentGraph(model: ReturnType<typeof fakeModel>, saver: SqliteSaver) {
  const bound = model.bindTools([readFile, deploy]);
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await bound.invoke(state.messages)] }))
    .addNode('tool', (async (toolCall: ToolCall) => {
      if (toolCall.name === 'deploy') interrupt({ approve: toolCall.args });
      return {
        messages: [
          toolCall.name === 'deploy' ? await deploy.invoke(toolCall) : await readFile.invoke(toolCall),
        ],
      };
    }) as never)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => {
      const calls = (state.messages.at(-1) as AIMessage).tool_calls ?? [];
      return calls.length > 0 ? calls.map((c) => new Send('tool', c)) : END;
    })
    .addEdge('tool', 'agent')
    .compile({ checkpointer: saver });
}

const config = (thread: string) => ({ configurable: { thread_id: thread } });

/**
 * The graph's own state, converted by the same LangChain conversion the reader uses. A message
 * of a step that has not finished has no id yet: getState() gives it a fresh one on every call,
 * so its key is compared as "no host id" (the reader keys it by position and content).
 */
async function stateEntries(graph: ReturnType<typeof agentGraph>, thread: string): Promise<Entry[]> {
  const [state, again] = [await graph.getState(config(thread)), await graph.getState(config(thread))];
  const messages = JSON.parse(JSON.stringify(state.values.messages)) as Array<{ kwargs: { id?: string } }>;
  for (const [i, message] of messages.entries())
    if (message.kwargs.id !== again.values.messages[i]?.id) delete message.kwargs.id;
  return langChainEntries(messages, { unsized: 0 });
}

/** What a reader must keep of each message, taken from LangChain's objects, not from any conversion. */
function shapeOfMessages(messages: readonly BaseMessage[]) {
  return messages.map((m) => ({
    key: m.id,
    role: { human: 'user', ai: 'assistant', tool: 'tool', system: 'system' }[m.type as string],
    calls: ((m as AIMessage).tool_calls ?? []).map((c) => `${c.id}:${c.name}`),
    result: m.type === 'tool' ? (m as unknown as { tool_call_id: string }).tool_call_id : undefined,
    text: m.text,
  }));
}
function shapeOfEntries(entries: readonly Entry[]) {
  return entries.map((e) => ({
    key: e.key,
    role: e.role,
    calls: e.parts.flatMap((p) => (p.type === 'tool-call' ? [`${p.id}:${p.name}`] : [])),
    result: e.parts.find((p) => p.type === 'tool-result')?.callId,
    text:
      e.role === 'tool'
        ? String(e.parts.find((p) => p.type === 'tool-result')?.output)
        : e.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
  }));
}

describe('langgraph-checkpoint reader on a real SqliteSaver file', async () => {
  const path = join(dir, 'checkpoints.db');
  const saver = SqliteSaver.fromConnString(path);

  // alpha, turn 1: an image, reasoning, two parallel reads, then one more, then an answer.
  const turn1 = fakeModel()
    .respond(
      new AIMessage({
        content: [
          { type: 'reasoning', reasoning: 'The screenshot shows a stack trace in a.ts; read a.ts and b.ts.' },
          { type: 'text', text: 'Reading the files.' },
        ],
        tool_calls: [call('a1', 'read_file', { path: 'a.ts' }), call('a2', 'read_file', { path: 'b.ts' })],
      }),
    )
    .respond(new AIMessage({ content: '', tool_calls: [call('a3', 'read_file', { path: 'c.ts' })] }))
    .respond(new AIMessage('The bug is in c.ts line 12.'));
  await agentGraph(turn1, saver).invoke(
    {
      messages: [
        new HumanMessage({
          content: [
            { type: 'text', text: 'Why does this crash?' },
            { type: 'image_url', image_url: { url: SCREENSHOT, detail: 'high' } },
          ],
        }),
      ],
    },
    config('alpha'),
  );
  // beta: a read and a deploy in parallel; the deploy waits for approval, the read has finished.
  const beta = fakeModel().respond(
    new AIMessage({
      content: 'Checking, then deploying.',
      tool_calls: [call('b1', 'read_file', { path: 'release.md' }), call('b2', 'deploy', { env: 'prod' })],
    }),
  );
  await agentGraph(beta, saver).invoke({ messages: [new HumanMessage('Ship it to prod.')] }, config('beta'));
  // alpha, turn 2: written last, so alpha is the default thread.
  const turn2 = fakeModel()
    .respond(new AIMessage({ content: '', tool_calls: [call('a4', 'read_file', { path: 'd.ts' })] }))
    .respond(new AIMessage('d.ts is fine too.'));
  const graph = agentGraph(turn2, saver);
  await graph.invoke({ messages: [new HumanMessage('And d.ts?')] }, config('alpha'));

  const file = () => sessionFile(path);

  it('reads each thread as getState() shows it, keyed by message id, tool calls and results paired', async () => {
    for (const thread of ['alpha', 'beta']) {
      const read = langgraphCheckpointReader.read(file(), { thread });
      expect(read.format).toBe('langgraph-checkpoint');
      expect(read.thread).toBe(thread);
      expect(read.entries).toEqual(await stateEntries(graph, thread));
      const state = await graph.getState(config(thread));
      const pending = state.next.length > 0 ? 1 : 0; // beta's last message: its id is getState()'s own
      expect(shapeOfEntries(read.entries).slice(0, read.entries.length - pending)).toEqual(
        shapeOfMessages(state.values.messages).slice(0, read.entries.length - pending),
      );
    }
    const alpha = langgraphCheckpointReader.read(file(), { thread: 'alpha' });
    expect(alpha.entries.map((e) => e.role).join(' ')).toBe(
      'user assistant tool tool assistant tool assistant user assistant tool assistant',
    );
  });

  it('includes the results a step wrote before it paused, as getState() does', async () => {
    const state = await graph.getState(config('beta'));
    expect(state.next).toEqual(['tool']);
    const read = langgraphCheckpointReader.read(file(), { thread: 'beta' });
    expect(shapeOfEntries(read.entries).map((e) => e.result ?? e.calls.join(','))).toEqual([
      '',
      'b1:read_file,b2:deploy',
      'b1',
    ]);
    expect(read.entries[2]?.key).toMatch(/^2-/); // no id until the step finishes
    expect(read.notes?.some((n) => n.includes('did not finish'))).toBe(true);
  });

  it('lists every thread and reads the most recently written one by default', () => {
    const read = langgraphCheckpointReader.read(file(), {});
    expect(read.thread).toBe('alpha');
    expect(read.threads?.map((t) => [t.id, t.messages])).toEqual([
      ['alpha', 11],
      ['beta', 2], // the checkpoint holds 2; the paused step's result is a pending write
    ]);
    expect(read.notes).toContain(
      'no system prompt: LangGraph stores the graph state, not a prompt a node adds when it calls the model',
    );
  });

  it('keeps images as parts priced by the larger provider rule (the store does not say which model read them) and reasoning as counted text', () => {
    const [request, reply] = langgraphCheckpointReader.read(file(), { thread: 'alpha' }).entries;
    const image = request?.parts[1];
    // 1536x1024 at high detail: scaled to 1152x768, 3x2 tiles of 512: 85 + 6 * 170.
    expect(image).toMatchObject({ type: 'opaque', kind: 'image', tokens: 1589 }); // 1536x1024: Anthropic's 1.19 MP cap, above OpenAI's 1,105
    expect(JSON.stringify(request?.parts)).toContain(SCREENSHOT); // kept for the report, never counted as text
    expect(reply?.parts[0]).toMatchObject({
      type: 'opaque',
      kind: 'reasoning',
      text: 'The screenshot shows a stack trace in a.ts; read a.ts and b.ts.',
    });
  });

  it('reads JSON dumps of getState() and of a checkpoint tuple the same way', async () => {
    for (const thread of ['alpha', 'beta']) {
      const expected = await stateEntries(graph, thread);
      const state = join(dir, `state-${thread}.json`);
      const dumped = JSON.stringify(await graph.getState(config(thread)));
      writeFileSync(state, dumped);
      const fromState = readSession(state);
      expect(fromState.format).toBe('langgraph-checkpoint');
      expect(fromState.thread).toBe(thread);
      // A dump carries the ids getState() gave the paused step's messages: keys as dumped.
      expect(fromState.entries).toEqual(langChainEntries(JSON.parse(dumped).values.messages, { unsized: 0 }));
      expect(fromState.entries.map((e) => ({ ...e, key: '' }))).toEqual(
        expected.map((e) => ({ ...e, key: '' })),
      );
      // A checkpoint tuple holds them as pending writes, without ids, as the SQLite file does.
      const tuple = join(dir, `tuple-${thread}.json`);
      writeFileSync(tuple, JSON.stringify(await saver.getTuple(config(thread))));
      expect(readSession(tuple).entries).toEqual(expected);
    }
  });

  it('reads the file while the app holds it open, and again after it closed it, leaving nothing on disk', async () => {
    const open = langgraphCheckpointReader.read(file(), {});
    saver.db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const before = readdirSync(dir).sort();
    expect(langgraphCheckpointReader.read(file(), {}).entries).toEqual(open.entries);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('replays and inspects each thread from the command line; an unknown thread is refused with the ids', async () => {
    for (const args of [[], ['--thread', 'alpha'], ['--thread', 'beta']]) {
      const run = await runCli(['replay', path, '--window', '16k', ...args]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `threads (--thread <id>):\n  ${args[1] === 'beta' ? ' ' : '*'} alpha: 11 messages`,
      );
      expect(run.stdout).toContain('Baton');
    }
    const run = await runCli(['inspect', path, '--thread', 'beta']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('thread beta');
    const unknown = await runCli(['replay', path, '--thread', 'gamma']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no thread "gamma" in this LangGraph checkpoint file; its threads: "alpha", "beta"',
    );
  });
});

describe('langgraph-checkpoint reader on a DeltaChannel history', async () => {
  it('rebuilds messages kept as per-step writes, as getState() does', async () => {
    const path = join(dir, 'delta.db');
    const saver = SqliteSaver.fromConnString(path);
    const model = fakeModel()
      .respond(new AIMessage({ content: '', tool_calls: [call('d1', 'read_file', { path: 'x.ts' })] }))
      .respond(new AIMessage('x.ts read.'))
      .respond(new AIMessage({ content: '', tool_calls: [call('d2', 'read_file', { path: 'y.ts' })] }))
      .respond(new AIMessage('y.ts read.'));
    const bound = model.bindTools([readFile]);
    const graph = new StateGraph(new StateSchema({ messages: MessagesDeltaValue }))
      .addNode('agent', async (state) => ({ messages: [await bound.invoke(state.messages)] }))
      .addNode('tool', async (state) => {
        const last = state.messages.at(-1) as AIMessage;
        return { messages: await Promise.all((last.tool_calls ?? []).map((c) => readFile.invoke(c))) };
      })
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', (state) =>
        ((state.messages.at(-1) as AIMessage).tool_calls ?? []).length > 0 ? 'tool' : END,
      )
      .addEdge('tool', 'agent')
      .compile({ checkpointer: saver });
    await graph.invoke({ messages: [new HumanMessage('Read x.ts.')] }, config('delta'));
    await graph.invoke({ messages: [new HumanMessage('Now y.ts.')] }, config('delta'));
    const state = await graph.getState(config('delta'));
    expect(state.values.messages).toHaveLength(8);
    const read = langgraphCheckpointReader.read(sessionFile(path), {});
    expect(read.entries).toEqual(
      langChainEntries(JSON.parse(JSON.stringify(state.values.messages)) as unknown[], { unsized: 0 }),
    );
    expect(read.notes?.some((n) => n.includes('DeltaChannel'))).toBe(true);
    saver.db.close();
  });
});

describe('langgraph-checkpoint reader refuses what is not a checkpoint', () => {
  it('does not claim Baton’s own SQLite store, an empty SQLite database or a plain message array', async () => {
    const store = join(dir, 'baton-store.db');
    const baton = sqliteStore({ path: store });
    await baton.putDocument('ns', 'k', { v: 1 }, 0);
    await baton.close();
    expect(langgraphCheckpointReader.mismatch(sessionFile(store))).toMatch(
      /^a SQLite file without a checkpoints table \(tables: .+\)$/,
    );
    const empty = join(dir, 'empty.db');
    const db = new DatabaseSync(empty);
    db.exec('CREATE TABLE t (x); DROP TABLE t;');
    db.close();
    expect(langgraphCheckpointReader.mismatch(sessionFile(empty))).toBe(
      'a SQLite file without a checkpoints table (no tables)',
    );
    const array = sessionFile('chat.json', new TextEncoder().encode('[{"role":"user","content":"hi"}]'));
    expect(langgraphCheckpointReader.mismatch(array)).toMatch(/^JSON without values.messages/);
    const run = await runCli(['inspect', empty]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'LangGraph checkpoint (a SQLite checkpointer file, or a JSON dump of getState()): a SQLite file without a checkpoints table (no tables)',
    );
  });
});

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type Entry, sqliteStore } from '@baton/core';
import { type PromptMessage, promptToEntries } from '@baton/core/internals';
import { Agent } from '@mastra/core/agent';
import { MessageList } from '@mastra/core/agent/message-list';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readSession } from '../formats.ts';
import { filePage, pngBase64, runCli, scratchDir } from './fixtures.test-support.ts';
import { langgraphCheckpointReader } from './langgraph-checkpoint.ts';
import { mastraStorageReader } from './mastra-storage.ts';
import { sessionFile } from './session-file.ts';

const dir = scratchDir('mastra-reader');

const tools = {
  read_file: createTool({
    id: 'read_file',
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => filePage(path),
  }),
  read_log: createTool({
    id: 'read_log',
    description: 'Read a service log',
    inputSchema: z.object({ service: z.string() }),
    execute: async ({ service }) => {
      if (service === 'db') throw new Error('permission denied for the db log');
      return { service, lines: [`${service}: 502 upstream timeout`, `${service}: retry ok`] };
    },
  }),
};

type Content = Array<Record<string, unknown>>;
type DoGenerate = Extract<
  NonNullable<ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]['doGenerate']>,
  (...args: never[]) => unknown
>;

/** Mastra's own mock model answering from a queue, recording each prompt it is sent. */
function queuedModel(replies: Content[]) {
  const prompts: PromptMessage[][] = [];
  const doGenerate = (async (options: { prompt: unknown }) => {
    prompts.push(options.prompt as PromptMessage[]);
    const content = replies.shift();
    if (!content) throw new Error('no reply queued');
    return {
      content,
      finishReason: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop',
      usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
      warnings: [],
    };
  }) as unknown as DoGenerate;
  return { model: new MastraLanguageModelV2Mock({ doGenerate }), prompts };
}

const toolCall = (id: string, name: string, input: unknown) => ({
  type: 'tool-call',
  toolCallId: id,
  toolName: name,
  input: JSON.stringify(input),
});

/** What a model reads in an entry, whoever converted it (ids, images' prices and Mastra's own fields aside). */
function visible(entries: readonly Entry[]) {
  return entries.map((e) => ({
    role: e.role,
    parts: e.parts.map((p) => {
      if (p.type === 'text') return { text: p.text };
      if (p.type === 'tool-call') return { call: p.id, name: p.name, input: p.input };
      if (p.type === 'tool-result')
        return { result: p.callId, name: p.name, output: p.output, error: !!p.isError };
      return { opaque: p.text ?? 'media' };
    }),
  }));
}

describe('mastra-storage reader on a real LibSQLStore file', async () => {
  const path = join(dir, 'mastra.db');
  const memory = new Memory({
    storage: new LibSQLStore({ id: 'reader-test', url: `file:${path}` }),
    options: { lastMessages: 40 },
  });
  const { model, prompts } = queuedModel([
    // support-1, turn 1: reasoning, two reads in one step, one more read, an answer.
    [
      { type: 'reasoning', text: 'The screenshot shows a crash in a.ts; read a.ts and b.ts.' },
      { type: 'text', text: 'Reading the files.' },
      toolCall('m1', 'read_file', { path: 'a.ts' }),
      toolCall('m2', 'read_file', { path: 'b.ts' }),
    ],
    [toolCall('m3', 'read_file', { path: 'c.ts' })],
    [{ type: 'text', text: 'The bug is in c.ts line 12.' }],
    // support-2: a log read returning JSON and one that fails, then an answer.
    [toolCall('n1', 'read_log', { service: 'api' }), toolCall('n2', 'read_log', { service: 'db' })],
    [{ type: 'text', text: 'The API timed out once and recovered.' }],
    // support-1, turn 2: written last, so support-1 is the default thread.
    [toolCall('m4', 'read_file', { path: 'd.ts' })],
    [{ type: 'text', text: 'd.ts is fine too.' }],
  ]);
  const agent = new Agent({
    id: 'support',
    name: 'support',
    instructions: 'You are a support engineer.',
    // Mastra's declarations do not hold under exactOptionalPropertyTypes (see packages/mastra/tsconfig.json).
    model: model as never,
    tools,
    memory,
  });
  const run = (thread: string, message: Parameters<typeof agent.generate>[0]) =>
    agent.generate(message, { memory: { thread, resource: 'team' }, maxSteps: 8 });
  await run('support-1', [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Why does this crash?' },
        { type: 'image', image: `data:image/png;base64,${pngBase64(1536, 1024)}`, mediaType: 'image/png' },
      ],
    },
  ]);
  await run('support-2', 'Check the API logs.');
  const lastPrompt = prompts.length;
  await run('support-1', 'And d.ts?');

  /** Mastra's own conversion of the stored thread to model messages. */
  async function mastraView(thread: string): Promise<Entry[]> {
    const { messages } = await memory.recall({ threadId: thread, perPage: false });
    const model = new MessageList().add(messages, 'memory').get.all.aiV5.model();
    return promptToEntries(model as unknown as PromptMessage[]);
  }

  it('reads each thread as Mastra converts it for the model: steps split, calls and results paired', async () => {
    for (const thread of ['support-1', 'support-2']) {
      const read = mastraStorageReader.read(sessionFile(path), { thread });
      expect(read.format).toBe('mastra-storage');
      expect(read.thread).toBe(thread);
      expect(visible(read.entries)).toEqual(visible(await mastraView(thread)));
    }
    const read = mastraStorageReader.read(sessionFile(path), { thread: 'support-1' });
    expect(read.entries.map((e) => e.role).join(' ')).toBe(
      'user assistant tool assistant tool assistant user assistant tool assistant',
    );
    const [json, failed] =
      mastraStorageReader.read(sessionFile(path), { thread: 'support-2' }).entries[2]?.parts ?? [];
    expect(json).toMatchObject({ type: 'tool-result', callId: 'n1', output: { service: 'api' } });
    expect(failed).toMatchObject({ callId: 'n2', output: 'permission denied for the db log', isError: true });
  });

  it('holds what the model was sent at its last call, system prompt aside', () => {
    const read = mastraStorageReader.read(sessionFile(path), { thread: 'support-1' });
    const sent = (prompts.at(-1) ?? []).filter((m) => m.role !== 'system');
    expect(prompts.length).toBe(lastPrompt + 2);
    expect(visible(read.entries.slice(0, -1))).toEqual(visible(promptToEntries(sent)));
  });

  it('keys entries by Mastra message id, the later steps of a message after it', async () => {
    const { messages } = await memory.recall({ threadId: 'support-1', perPage: false });
    const read = mastraStorageReader.read(sessionFile(path), { thread: 'support-1' });
    const keys = read.entries.map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    const assistant = messages.find((m) => m.role === 'assistant')!;
    expect(keys.filter((k) => k.split('#')[0] === assistant.id)).toEqual([
      assistant.id,
      `${assistant.id}#1`,
      `${assistant.id}#2`,
      `${assistant.id}#3`,
      `${assistant.id}#4`,
    ]);
    expect(keys).toEqual(expect.arrayContaining(messages.map((m) => m.id)));
  });

  it('lists every thread with its stored message count and reads the most recent by default', () => {
    const read = mastraStorageReader.read(sessionFile(path), {});
    expect(read.thread).toBe('support-1');
    expect(read.threads?.map((t) => [t.id, t.messages])).toEqual([
      ['support-1', 4],
      ['support-2', 2],
    ]);
    expect(read.notes?.[0]).toMatch(/^no system prompt: Mastra does not store it/);
  });

  it('keeps images as parts priced by the larger provider rule (the store does not say which model read them) and reasoning as counted text', () => {
    const [request, reply] = mastraStorageReader.read(sessionFile(path), { thread: 'support-1' }).entries;
    // 1536x1024 at auto detail: scaled to 1152x768, 3x2 tiles of 512: 85 + 6 * 170.
    expect(request?.parts[1]).toMatchObject({ type: 'opaque', kind: 'image', tokens: 1589 }); // 1536x1024: Anthropic's 1.19 MP cap, above OpenAI's 1,105
    expect(reply?.parts[0]).toMatchObject({
      type: 'opaque',
      kind: 'reasoning',
      text: 'The screenshot shows a crash in a.ts; read a.ts and b.ts.',
    });
  });

  it('replays and inspects each thread from the command line; an unknown thread is refused with the ids', async () => {
    for (const args of [[], ['--thread', 'support-1'], ['--thread', 'support-2']]) {
      const run = await runCli(['replay', path, '--window', '16k', ...args]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('threads (--thread <id>):');
      expect(run.stderr).toContain('note: no system prompt: Mastra does not store it');
    }
    const run = await runCli(['inspect', path, '--thread', 'support-2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('thread support-2');
    const unknown = await runCli(['replay', path, '--thread', 'support-3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no thread "support-3" in this Mastra storage file; its threads: "support-1", "support-2"',
    );
    expect(readSession(path).format).toBe('mastra-storage');
  });

  it('is not claimed by the LangGraph reader, and does not claim other SQLite files', async () => {
    expect(langgraphCheckpointReader.mismatch(sessionFile(path))).toMatch(
      /^a SQLite file without a checkpoints table \(tables: .*mastra_.*\)$/,
    );
    const store = join(dir, 'baton-store.db');
    const baton = sqliteStore({ path: store });
    await baton.putDocument('ns', 'k', { v: 1 }, 0);
    await baton.close();
    expect(mastraStorageReader.mismatch(sessionFile(store))).toMatch(
      /^a SQLite file without a mastra_messages table \(tables: .+\)$/,
    );
    const empty = join(dir, 'empty.db');
    const db = new DatabaseSync(empty);
    db.exec('CREATE TABLE t (x); DROP TABLE t;');
    db.close();
    expect(mastraStorageReader.mismatch(sessionFile(empty))).toBe(
      'a SQLite file without a mastra_messages table (no tables)',
    );
    expect(mastraStorageReader.mismatch(sessionFile('chat.json', new TextEncoder().encode('[]')))).toBe(
      'not a SQLite file',
    );
  });
});

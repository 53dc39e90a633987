import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryText, fromOpenAIChat, type Part } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { readSession } from '../formats.ts';
import { modelCalls } from '../replay.ts';
import { conversion, converted, original, skipWithoutCorpus } from './corpus.test-support.ts';
import { runCli, scratchDir, textFile } from './fixtures.test-support.ts';
import { sessionFile, TranscriptFormatError } from './session-file.ts';
import { tau2Reader } from './tau2.ts';

const skipFixtures = skipWithoutCorpus('tau2 fixture tests');
const dir = scratchDir('tau2');

const NAME = 'customer-service-tau2-telecom';
const FILE = original(`${NAME}.json`);

type Json = Record<string, unknown>;
interface Results {
  info: { environment_info: { policy: string }; agent_info: Json };
  tasks: unknown[];
  simulations: { id: string; task_id: string; messages: Json[] }[];
}
const results = () => JSON.parse(readFileSync(FILE, 'utf8')) as Results;
const asFile = (value: unknown) => textFile('results.json', JSON.stringify(value));

/** The hand conversion writes `content: ""` beside a tool call; tau2 sends null there, and the reader no text part. */
const withoutEmptyText = (parts: Part[]) => parts.filter((p) => !(p.type === 'text' && p.text === ''));

describe.skipIf(skipFixtures)('tau2 reader on the real results file', () => {
  it("reads the agent's view as the hand conversion: 43 messages, same roles, calls and text", () => {
    const transcript = readSession(sessionFile(FILE));
    expect(transcript.format).toBe('tau2');
    const expected = fromOpenAIChat(converted(`${NAME}.openai.json`));
    expect(transcript.entries).toHaveLength(43);
    expect(transcript.entries.map((e) => e.role)).toEqual(expected.map((e) => e.role));
    const calls = (entries: typeof expected) =>
      entries.flatMap((e) =>
        e.parts.flatMap((p) => (p.type === 'tool-call' ? [[p.id, p.name, p.input]] : [])),
      );
    expect(calls(transcript.entries)).toHaveLength(6);
    expect(calls(transcript.entries)).toEqual(calls(expected));
    expect(transcript.entries.map(entryText)).toEqual(
      expected.map((e) => entryText({ ...e, parts: withoutEmptyText(e.parts) })),
    );
    // The one difference: no empty text part beside a tool call.
    expect(transcript.entries.map((e) => e.parts)).toEqual(expected.map((e) => withoutEmptyText(e.parts)));
    expect(expected.filter((e) => e.parts.length !== withoutEmptyText(e.parts).length)).toHaveLength(6);
  });

  it("builds the system prompt from the run's policy, the agent speaking first", () => {
    const { entries } = readSession(sessionFile(FILE));
    const policy = results().info.environment_info.policy;
    const system = entryText(entries[0]!);
    expect(system.startsWith('<instructions>\nYou are a customer service agent')).toBe(true);
    expect(system.endsWith(`</instructions>\n<policy>\n${policy}\n</policy>`)).toBe(true);
    expect(entries.slice(1, 3).map((e) => [e.role, entryText(e)])).toEqual([
      ['assistant', 'Hi! How can I help you today?'],
      [
        'user',
        'Hi, I’m having trouble sending MMS messages from my phone. It’s been a few hours now and nothing is going through. Can you help me fix this?',
      ],
    ]);
  });

  it("leaves out the simulated user's own tool calls and results", () => {
    const { entries, notes } = readSession(sessionFile(FILE));
    const userCallIds = results().simulations[0]!.messages.flatMap((m) =>
      m.role === 'user' && Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => (c as Json).id) : [],
    );
    expect(userCallIds).toHaveLength(21);
    const ids = entries.flatMap((e) =>
      e.parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : p.type === 'tool-result' ? [p.callId] : [])),
    );
    expect(ids.filter((id) => userCallIds.includes(id))).toEqual([]);
    expect(notes).toContain(
      '42 tool calls and results of the simulated user left out (its own phone or account tools; the agent never sees them)',
    );
    // Every agent call has its result right after it.
    entries.forEach((entry, i) => {
      for (const part of entry.parts)
        if (part.type === 'tool-call') expect(entries[i + 1]?.parts[0]).toMatchObject({ callId: part.id });
    });
  });

  it('replays end to end: exit 0, a model call per agent message', async () => {
    const out = join(dir, 'tau2.html');
    const run = await runCli(['replay', FILE, '--window', '16k', '--report', out]);
    expect(run.code, run.output).toBe(0);
    const agent = results().simulations[0]!.messages.filter((m) => m.role === 'assistant');
    // 20 generated turns, plus tau2's scripted greeting (cost 0, no usage), which no model made.
    const generated = agent.filter((m) => typeof m.cost === 'number' && m.cost > 0);
    expect(generated).toHaveLength(20);
    expect(agent).toHaveLength(21);
    expect(modelCalls(readSession(FILE).entries)).toHaveLength(generated.length);
    expect(readFileSync(out, 'utf8')).toContain(`${generated.length} model calls`);
  });

  it('each simulation is a thread: by index or id, the first by default; an unknown one is refused', () => {
    const value = results();
    const [first] = value.simulations;
    const second = {
      ...structuredClone(first!),
      id: 'sim-b',
      task_id: 'task-b',
      messages: first!.messages.slice(0, 6),
    };
    value.simulations.push(second);
    const file = asFile(value);
    const byDefault = tau2Reader.read(file, {});
    expect(byDefault.thread).toBe('0');
    expect(byDefault.entries).toHaveLength(43);
    expect(byDefault.threads?.map((t) => [t.id, t.messages])).toEqual([
      ['0', 43],
      ['1', 7],
    ]);
    expect(byDefault.threads?.[0]?.label).toBe(
      `task ${first!.task_id.slice(0, 59)}…, trial 0 · 43 messages · id ${first!.id}`,
    );
    expect(byDefault.threads?.[1]?.label).toBe('task task-b, trial 0 · 7 messages · id sim-b');
    expect(tau2Reader.read(file, { thread: '1' }).entries).toHaveLength(7);
    expect(tau2Reader.read(file, { thread: 'sim-b' }).thread).toBe('1');
    expect(() => tau2Reader.read(file, { thread: '2' })).toThrow(
      `--thread: no simulation "2" in this tau2 file; it holds 2 (--thread 0 to 1, or a simulation id: ${first!.id}, sim-b)`,
    );
  });

  it('a malformed message is refused naming its simulation and place', () => {
    const value = results();
    value.simulations[0]!.messages[4] = { role: 'assistant', content: null, tool_calls: [{ arguments: {} }] };
    expect(() => tau2Reader.read(asFile(value), {})).toThrow(TranscriptFormatError);
    expect(() => tau2Reader.read(asFile(value), {})).toThrow(
      `simulation 0 (${value.simulations[0]!.id}), message 4 (assistant): tool call 0 has no name`,
    );
  });

  it('claims no other session file, and no reader but this one claims it', () => {
    for (const other of ['coding-claude-code-gomod.jsonl', 'research-smolagents-toolcalling-gaia.jsonl'])
      expect(tau2Reader.mismatch(sessionFile(other, readFileSync(original(other))))).toBeDefined();
    const handFile = sessionFile('c.json', readFileSync(conversion(`${NAME}.openai.json`)));
    expect(tau2Reader.mismatch(handFile)).toBe('no simulations list');
    expect(readSession(handFile).format).toBe('openai-chat');
  });
});

describe('tau2 reader on written results', () => {
  const results = (messages: Json[], info: Json = { environment_info: { policy: 'P' } }) => ({
    info,
    tasks: [],
    simulations: [{ id: 's', task_id: 't', trial: 0, messages }],
  });

  it('sends arguments as json.dumps does, marks failed calls, keeps text beside a call', () => {
    const { entries, notes } = tau2Reader.read(
      asFile(
        results(
          [
            { role: 'assistant', content: 'Hello.' },
            { role: 'user', content: 'Book café' },
            {
              role: 'assistant',
              content: 'Looking.',
              tool_calls: [{ id: 'c1', name: 'find', arguments: { q: 'café', n: [1, 2], ok: true } }],
            },
            { role: 'tool', id: 'c1', content: 'Error: no', requestor: 'assistant', error: true },
            { role: 'assistant', content: null, tool_calls: [{ id: 'c2', name: 'book', arguments: {} }] },
          ],
          { environment_info: { policy: 'P' }, agent_info: { implementation: 'llm_agent_solo' } },
        ),
      ),
      {},
    );
    expect(entries.map((e) => e.role)).toEqual([
      'system',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(entries[3]?.parts).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', id: 'c1', name: 'find', input: '{"q": "caf\\u00e9", "n": [1, 2], "ok": true}' },
    ]);
    expect(entries[4]?.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'c1',
      name: 'find',
      output: 'Error: no',
      isError: true,
    });
    expect(notes).toEqual([
      "system prompt rebuilt with llm_agent's template; this run's agent is llm_agent_solo, whose prompt adds to it",
    ]);
  });

  it('without a policy there is no system prompt, and a note says so', () => {
    const { entries, notes } = tau2Reader.read(
      asFile(results([{ role: 'assistant', content: 'Hi' }], {})),
      {},
    );
    expect(entries.map((e) => e.role)).toEqual(['assistant']);
    expect(notes).toEqual(['no policy in info.environment_info: the system prompt is missing']);
  });

  it('refuses a role tau2 does not write', () => {
    expect(() => tau2Reader.read(asFile(results([{ role: 'narrator', content: 'x' }])), {})).toThrow(
      'simulation 0 (s), message 0: role "narrator", not assistant, user or tool',
    );
  });

  it('does not claim an OpenAI chat file or a smolagents record', () => {
    const chat = asFile({ messages: [{ role: 'user', content: 'hi' }] });
    expect(tau2Reader.mismatch(chat)).toBe('no simulations list');
    expect(tau2Reader.mismatch(asFile([{ role: 'user', content: 'hi' }]))).toBe(
      'a list, not { info, tasks, simulations }',
    );
    expect(tau2Reader.mismatch(asFile({ simulations: [] }))).toBe('simulations without info or tasks');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryText, fromOpenAIChat } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { readSession } from '../formats.ts';
import { modelCalls } from '../replay.ts';
import { conversion, converted, original, skipWithoutCorpus } from './corpus.test-support.ts';
import { pngBase64, runCli, scratchDir, textFile } from './fixtures.test-support.ts';
import { sessionFile, TranscriptFormatError } from './session-file.ts';
import { smolagentsReader } from './smolagents.ts';

const skipFixtures = skipWithoutCorpus('smolagents fixture tests');
const dir = scratchDir('smolagents');

const RECORDS = {
  toolcalling: 'research-smolagents-toolcalling-gaia',
  code: 'data-smolagents-codeagent-gaia',
} as const;

const recordBytes = (name: string) => readFileSync(original(`${name}.jsonl`));
const hand = (name: string) => fromOpenAIChat(converted(`${name}.openai.json`));
const read = (text: string, thread?: string) =>
  smolagentsReader.read(textFile('run.jsonl', text), thread === undefined ? {} : { thread });

describe.skipIf(skipFixtures)('smolagents reader on the real benchmark records', () => {
  it.each([
    [RECORDS.toolcalling, 12],
    [RECORDS.code, 20],
  ])('%s reads as its hand conversion: %i messages, same roles, calls and text', (name, count) => {
    const transcript = readSession(sessionFile(`${name}.jsonl`, recordBytes(name)));
    expect(transcript.format).toBe('smolagents');
    const expected = hand(name);
    expect(transcript.entries).toHaveLength(count);
    expect(expected).toHaveLength(count);
    expect(transcript.entries.map((e) => e.role)).toEqual(expected.map((e) => e.role));
    const calls = (entries: typeof expected) =>
      entries.flatMap((e) =>
        e.parts.flatMap((p) => (p.type === 'tool-call' ? [[p.id, p.name, p.input]] : [])),
      );
    expect(calls(transcript.entries)).toEqual(calls(expected));
    expect(transcript.entries.map(entryText)).toEqual(expected.map(entryText));
    // No difference left to explain: every part is the hand conversion's.
    expect(transcript.entries.map((e) => e.parts)).toEqual(expected.map((e) => e.parts));
    expect(transcript.threads).toBeUndefined();
  });

  it('reads a ToolCallingAgent record: structured calls from the "Calling tools:" repr, observations as results', () => {
    const { entries, notes } = readSession(sessionFile('t.jsonl', recordBytes(RECORDS.toolcalling)));
    expect(entries[0]?.role).toBe('system');
    expect(entryText(entries[1]!)).toMatch(/^New task:\nIn Emily Midkiff's June 2014 article/);
    expect(entries[2]?.parts[1]).toEqual({
      type: 'tool-call',
      id: 'call_jbzDfQAi976ttigpSOvNONPi',
      name: 'web_search',
      input: { query: 'Emily Midkiff June 2014 article Fafnir journal dragon depictions' },
    });
    expect(entries[3]?.parts[0]).toMatchObject({
      type: 'tool-result',
      callId: 'call_jbzDfQAi976ttigpSOvNONPi',
      name: 'web_search',
    });
    expect(entries.at(-1)?.parts[0]).toMatchObject({ name: 'final_answer' });
    expect(notes?.join('\n')).toMatch(/assistant text and observations as user text/);
  });

  it('reads a CodeAgent record: the code action is the python_interpreter call, parse errors stay user messages', () => {
    const { entries, notes } = readSession(sessionFile('c.jsonl', recordBytes(RECORDS.code)));
    const call = entries[4]?.parts.find((p) => p.type === 'tool-call');
    expect(call).toMatchObject({ name: 'python_interpreter', id: 'call_2' });
    expect(call?.type === 'tool-call' && call.input).toBe(
      'life_science_results = web_search(query="ScienceDirect Reference Works Life Science domains 2022")\nprint(life_science_results)',
    );
    expect(entries[3]?.role).toBe('user');
    expect(entryText(entries[3]!)).toMatch(/^Error:\nError in code parsing/);
    expect(notes).toContain(
      '2 tool responses with no call before them (code that could not be parsed) read as user messages',
    );
  });

  it('replays each record end to end: exit 0, one model call per agent step', async () => {
    for (const name of Object.values(RECORDS)) {
      const file = original(`${name}.jsonl`);
      const out = join(dir, `${name}.html`);
      const run = await runCli(['replay', file, '--window', '16k', '--report', out]);
      expect(run.code, run.output).toBe(0);
      // The agent's steps, counted in the original: one assistant message per model call.
      const record = JSON.parse(recordBytes(name).toString('utf8')) as {
        intermediate_steps: { role: string }[];
      };
      const steps = record.intermediate_steps.filter((m) => m.role === 'assistant').length;
      const entries = readSession(file).entries;
      expect(modelCalls(entries)).toHaveLength(steps);
      expect(readFileSync(out, 'utf8')).toContain(`${steps} model calls`);
    }
  });

  it('a file of several records: each is a thread, the first by default, labelled with its question', () => {
    const text = `${recordBytes(RECORDS.toolcalling).toString('utf8').trim()}\n\n${recordBytes(RECORDS.code).toString('utf8')}`;
    const first = read(text);
    expect(first.entries).toHaveLength(12);
    expect(first.thread).toBe('0');
    expect(first.threads?.map((t) => [t.id, t.messages])).toEqual([
      ['0', 12],
      ['1', 20],
    ]);
    expect(first.threads?.[0]?.label).toMatch(/^In Emily Midkiff's June 2014 article in a… · 12 messages$/);
    expect(first.threads?.[1]?.label).toMatch(/^On ScienceDirect, what is the difference/);
    const second = read(text, '1');
    expect(second.entries).toHaveLength(20);
    expect(second.thread).toBe('1');
    expect(() => read(text, '2')).toThrow(
      /--thread: no record "2" in this smolagents file; its records are 0, 1/,
    );
  });

  it('a malformed record is refused naming it; the other records stay readable', () => {
    const broken = JSON.parse(recordBytes(RECORDS.code).toString('utf8')) as {
      intermediate_steps: unknown[];
    };
    broken.intermediate_steps[5] = {
      role: 'tool-call',
      content: [
        {
          type: 'text',
          text: "Calling tools:\n[{'id': 'call_2', 'function': {'name': 'python_interpreter', ",
        },
      ],
    };
    const text = `${recordBytes(RECORDS.toolcalling).toString('utf8').trim()}\n${JSON.stringify(broken)}\n`;
    expect(() => read(text, '1')).toThrow(TranscriptFormatError);
    expect(() => read(text, '1')).toThrow(
      /record 1 \(line 2\) cannot be read: intermediate_steps\[5\]: the calls after "Calling tools:" cannot be read/,
    );
    const first = read(text);
    expect(first.entries).toHaveLength(12);
    expect(first.threads?.[1]?.label).toMatch(/^unreadable: intermediate_steps\[5\]/);
    expect(first.notes).toContain('records 1 cannot be read (--thread shows why)');
  });

  it('claims neither the hand conversions nor other session files', () => {
    for (const other of [
      'coding-claude-code-gomod.jsonl',
      'coding-codex-vscode-gomod.jsonl',
      'customer-service-tau2-telecom.json',
    ])
      expect(smolagentsReader.mismatch(sessionFile(other, readFileSync(original(other))))).toBeDefined();
    const handFile = readFileSync(conversion(`${RECORDS.code}.openai.json`));
    expect(smolagentsReader.mismatch(sessionFile('c.json', handFile))).toBe('no intermediate_steps');
    expect(readSession(sessionFile('c.json', handFile)).format).toBe('openai-chat');
  });
});

describe('smolagents reader on written records', () => {
  const record = (steps: unknown[], extra: object = {}) =>
    JSON.stringify({ question: 'What is two plus two?', intermediate_steps: steps, ...extra });
  const text = (role: string, t: string) => ({ role, content: [{ type: 'text', text: t }] });

  it('accepts one record as a JSON document, and a list of memory steps', () => {
    const doc = JSON.stringify(
      JSON.parse(record([text('system', 'S'), text('user', 'New task:\nWhat is two plus two?')])),
      null,
      2,
    );
    expect(read(doc).entries.map((e) => e.role)).toEqual(['system', 'user']);
    const steps = JSON.stringify([{ task: 'T', task_images: null }]);
    expect(read(steps).entries.map(entryText)).toEqual(['New task:\nT']);
  });

  it('does not claim an OpenAI chat array or a record of an older runner', () => {
    const chat = JSON.stringify([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'hi' },
    ]);
    expect(smolagentsReader.mismatch(textFile('chat.json', chat))).toBe(
      'a list that holds no smolagents memory step',
    );
    const old = JSON.stringify({ question: 'Q', intermediate_steps: '[ActionStep(step_number=1, ...)]' });
    expect(smolagentsReader.mismatch(textFile('old.jsonl', `${old}\n${old}\n`))).toMatch(
      /^line 1: intermediate_steps is text/,
    );
  });

  it('rebuilds what the model saw from memory steps (get_full_steps), the way to_messages does', () => {
    const steps = [
      {
        step_number: 1,
        model_input_messages: [text('system', 'You solve tasks.'), text('user', 'New task:\nAdd.')],
        model_output: ' Thought: add them. ',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'python_interpreter', arguments: '2+2' } },
        ],
        observations: '4',
        error: null,
      },
      { plan: 'I will answer 4.\n', model_input_messages: [], model_output_message: {}, timing: {} },
      {
        step_number: 2,
        model_output: 'final_answer(4)',
        tool_calls: [
          { id: 'c2', type: 'function', function: { name: 'python_interpreter', arguments: 'x' } },
        ],
        observations: 'Execution logs:\n',
        error: { type: 'AgentExecutionError', message: 'boom' },
      },
      { output: 4 },
    ];
    const transcript = read(JSON.stringify([{ task: 'Add.' }, ...steps]));
    expect(transcript.entries.map((e) => [e.role, entryText(e)])).toEqual([
      ['system', 'You solve tasks.'],
      ['user', 'New task:\nAdd.'],
      ['assistant', 'Thought: add them.\npython_interpreter(2+2)'],
      ['tool', 'Observation:\n4'],
      ['assistant', 'I will answer 4.'],
      ['user', 'Now proceed and carry out this plan.'],
      ['assistant', 'final_answer(4)\npython_interpreter(x)'],
      [
        'tool',
        "Observation:\nExecution logs:\n\nCall id: c2\nError:\nboom\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n",
      ],
    ]);
    expect(transcript.entries[7]?.parts[0]).toMatchObject({ callId: 'c2', isError: true });
    expect(transcript.notes).toContain("system prompt taken from the first step's model input");
  });

  it('gives every call a result: one observation for parallel calls, the others empty', () => {
    const calls =
      "Calling tools:\n[{'id': 'a', 'type': 'function', 'function': {'name': 'f', 'arguments': {}}}, {'id': 'b', 'type': 'function', 'function': {'name': 'g', 'arguments': {}}}]";
    const { entries, notes } = read(
      record([
        text('user', 'New task:\nQ'),
        text('assistant', 'both'),
        text('tool-call', calls),
        text('tool-response', 'Observation:\nA and B'),
      ]),
    );
    expect(entries.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(entries.slice(2).map((e) => e.parts[0])).toMatchObject([
      { callId: 'a', output: 'Observation:\nA and B' },
      { callId: 'b', output: '' },
    ]);
    expect(notes).toContain(
      "1 parallel tool call given an empty result: smolagents recorded one observation for all calls of a step (read as the first call's result)",
    );
  });

  it('counts images by OpenAI rule, never their base64 as text', () => {
    // A 1x1 PNG header claiming 1024x2048: fit 2048, shortest side to 768 -> 768x1536 = 2x3 tiles.
    const dataUrl = `data:image/png;base64,${pngBase64(1024, 2048, 30_000)}`;
    const { entries } = read(
      record([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'New task:\nLook.' },
            { type: 'image', image: dataUrl },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'image', image: '<PIL.PngImagePlugin.PngImageFile image mode=RGB size=512x512 at 0x7F>' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://example.com/unknown-size.png' } },
            { type: 'image_url', image_url: { url: 'https://example.com/big.png', detail: 'low' } },
          ],
        },
      ]),
    );
    expect(entries[0]?.parts[1]).toMatchObject({ type: 'opaque', kind: 'image', tokens: 85 + 170 * 6 });
    expect(entries[1]?.parts[0]).toMatchObject({ type: 'opaque', kind: 'image', tokens: 255 });
    expect(entryText(entries[0]!)).toBe('New task:\nLook.\n[image]');
    // A size it cannot read is priced as 1024x1024; low detail is 85 whatever the size.
    expect(entries[2]?.parts).toMatchObject([{ tokens: 765 }, { tokens: 85 }]);
  });

  it("puts a step's observation images after its result, and refuses a record with no step", () => {
    const screenshot = '<PIL.PngImagePlugin.PngImageFile image mode=RGB size=1024x768 at 0x7F>';
    const { entries, notes } = read(
      JSON.stringify([
        { task: 'Browse.' },
        {
          step_number: 1,
          model_output: 'Looking.',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'go_to', arguments: { url: 'x' } } }],
          observations_images: [screenshot],
          observations: 'Loaded.',
        },
      ]),
    );
    expect(entries.map((e) => [e.role, e.parts[0]?.type])).toEqual([
      ['user', 'text'],
      ['assistant', 'text'],
      ['tool', 'tool-result'],
      ['user', 'opaque'],
    ]);
    expect(entries[3]?.parts[0]).toMatchObject({ kind: 'image', tokens: 765 });
    expect(notes).toContain("1 observation image messages placed after their step's tool results");
    const failed = JSON.stringify({ question: 'Q', intermediate_steps: [] });
    expect(() => read(`${failed}\n`)).toThrow(
      'the record cannot be read: intermediate_steps is empty (the run failed before its first step)',
    );
  });

  it('refuses a message with a role smolagents does not write, naming where it is', () => {
    expect(() => read(record([text('robot', 'x')]))).toThrow(
      /the record cannot be read: intermediate_steps\[0\]: role "robot", not one of system, user, assistant, tool-call, tool-response/,
    );
  });
});

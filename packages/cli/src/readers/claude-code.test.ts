import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBaton, type Entry, fromOpenAIChat, TokenCounter } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { readSession } from '../formats.ts';
import { inspectTranscript } from '../inspect.ts';
import { replay } from '../replay.ts';
import { claudeCodeReader } from './claude-code.ts';
import { converted, original, originalLines, skipWithoutCorpus } from './corpus.test-support.ts';
import { pngBase64, runCli, scratchDir, textFile, throughBaton } from './fixtures.test-support.ts';
import { TranscriptFormatError } from './session-file.ts';

const skipCorpus = skipWithoutCorpus('Claude Code fixture tests');
const dir = scratchDir('claude-code');

const read = (text: string, thread?: string) =>
  readSession(textFile('session.jsonl', text), thread === undefined ? {} : { thread });

type Json = Record<string, unknown>;
/** A session written line by line, as Claude Code does: each line chained to the one before it. */
function session() {
  const lines: Json[] = [];
  let last: string | null = null;
  let n = 0;
  const add = (type: 'user' | 'assistant', message: Json, extra: Json = {}) => {
    const uuid = `uuid-${++n}`;
    lines.push({ parentUuid: last, isSidechain: false, sessionId: 's1', type, message, uuid, ...extra });
    last = uuid;
    return uuid;
  };
  return {
    lines,
    user: (content: unknown, extra?: Json) => add('user', { role: 'user', content }, extra),
    /** One content block of response `id`, on its own line. */
    block: (id: string, block: Json, extra?: Json) =>
      add('assistant', { id, role: 'assistant', model: 'claude-sonnet-4', content: [block] }, extra),
    raw: (line: Json) => lines.push(line),
    text: () => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
  };
}

const imageBlock = (width: number, height: number) => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: pngBase64(width, height, 60_000) },
});

describe('claude-code reader', () => {
  it('merges the content blocks of one response by message.id, keeps thinking and pairs tool results', () => {
    const s = session();
    s.user('Fix the build.');
    s.block('msg_1', {
      type: 'thinking',
      thinking: 'The build fails on go.mod; read it first.',
      signature: 'sig',
    });
    s.block('msg_1', { type: 'text', text: 'Reading go.mod.' });
    s.block('msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'go.mod' } });
    s.user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'module x\ngo 1.23', is_error: false }]);
    s.block('msg_2', { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'go build' } });
    s.user([{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'exit 1', is_error: true }]);
    s.block('msg_3', { type: 'text', text: 'Done.' });
    const transcript = read(s.text());
    expect(transcript.format).toBe('claude-code');
    expect(transcript.threads).toBeUndefined();
    const { entries } = transcript;
    expect(entries.map((e) => [e.role, e.key])).toEqual([
      ['user', 'uuid-1'],
      ['assistant', 'msg_1'],
      ['tool', 'uuid-5'],
      ['assistant', 'msg_2'],
      ['tool', 'uuid-7'],
      ['assistant', 'msg_3'],
    ]);
    expect(entries[1]?.parts).toEqual([
      {
        type: 'opaque',
        kind: 'thinking',
        value: { type: 'thinking', thinking: 'The build fails on go.mod; read it first.', signature: 'sig' },
        text: 'The build fails on go.mod; read it first.',
      },
      { type: 'text', text: 'Reading go.mod.' },
      { type: 'tool-call', id: 'toolu_1', name: 'Read', input: { file_path: 'go.mod' } },
    ]);
    expect(entries[2]?.parts).toEqual([
      { type: 'tool-result', callId: 'toolu_1', name: 'Read', output: 'module x\ngo 1.23' },
    ]);
    expect(entries[4]?.parts[0]).toMatchObject({ name: 'Bash', isError: true });
    // Thinking costs tokens: the entry counts more than its text and call alone.
    const counter = new TokenCounter(createBaton({ contextWindow: 16_000 }).options.tokenizer, 512);
    const withoutThinking = { ...entries[1]!, parts: entries[1]!.parts.slice(1) };
    expect(counter.raw(entries[1]!) - counter.raw(withoutThinking)).toBeGreaterThanOrEqual(8);
  });

  it('drops a line repeated with the same uuid, and says so', () => {
    const s = session();
    s.user('List the files.');
    s.block('msg_1', { type: 'tool_use', id: 'toolu_1', name: 'LS', input: {} });
    s.user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.go' }]);
    s.raw({ ...s.lines.at(-1)! });
    s.block('msg_2', { type: 'text', text: 'One file.' });
    const { entries, notes } = read(s.text());
    expect(entries.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(notes).toContain('1 duplicated line(s) (same uuid) dropped');
  });

  it('keeps what the model saw: meta lines and interrupts merged into one user turn; summaries, system lines, synthetic replies and compaction summaries left out', () => {
    const s = session();
    s.raw({ type: 'summary', summary: 'Build fix', leafUuid: 'x' });
    s.user('Fix the build.');
    s.block('msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Edit', input: {} });
    s.user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'rejected', is_error: true }]);
    s.user([{ type: 'text', text: '[Request interrupted by user for tool use]' }]);
    s.user('Keep the toolchain line.');
    s.raw({
      type: 'system',
      subtype: 'informational',
      content: 'hook ran',
      uuid: 'sys-1',
      isSidechain: false,
    });
    s.block('msg_err', { type: 'text', text: 'API Error: overloaded' });
    (s.lines.at(-1)!.message as Json).model = '<synthetic>';
    s.user('Caveat: the messages below were generated by local commands.', { isMeta: true });
    s.user('This session is being continued from a previous conversation...', { isCompactSummary: true });
    s.block('msg_2', { type: 'text', text: 'Kept it.' });
    const { entries, notes } = read(s.text());
    expect(entries.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(entries[3]?.parts).toEqual([
      { type: 'text', text: '[Request interrupted by user for tool use]' },
      { type: 'text', text: 'Keep the toolchain line.' },
      { type: 'text', text: 'Caveat: the messages below were generated by local commands.' },
    ]);
    expect(notes).toEqual(
      expect.arrayContaining([
        'lines not sent to the model skipped: summary 1, system 1',
        '1 synthetic assistant messages (API errors Claude Code wrote) left out',
        '1 Claude Code compaction summaries left out: the whole recorded history is read instead',
      ]),
    );
  });

  it('replays the active branch only: a rewind leaves the abandoned turns out, with a note', () => {
    const s = session();
    s.user('fix the parser');
    const answer = s.block('m1', { type: 'text', text: 'Which parser?' });
    s.user('the date parser'); // later rewound: the user edited this message
    s.block('m2', { type: 'text', text: 'Looking at src/dates.ts' });
    // The edit: a new user line hanging off the same answer, and the branch that follows it.
    s.raw({
      parentUuid: answer,
      isSidechain: false,
      sessionId: 's1',
      type: 'user',
      uuid: 'edit-1',
      message: { role: 'user', content: 'the URL parser' },
    });
    s.raw({
      parentUuid: 'edit-1',
      isSidechain: false,
      sessionId: 's1',
      type: 'assistant',
      uuid: 'edit-2',
      message: {
        id: 'm3',
        role: 'assistant',
        model: 'claude-sonnet-4',
        content: [{ type: 'text', text: 'Looking at src/url.ts' }],
      },
    });
    const transcript = read(s.text());
    const texts = transcript.entries.map((e) =>
      e.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
    );
    expect(texts).toEqual(['fix the parser', 'Which parser?', 'the URL parser', 'Looking at src/url.ts']);
    expect(transcript.notes?.join('\n')).toContain('2 line(s) of abandoned branches');
    // Without a fork nothing is left out, whatever the chain.
    const straight = session();
    straight.user('a');
    straight.block('m1', { type: 'text', text: 'b' });
    expect(read(straight.text()).entries).toHaveLength(2);
  });

  it('splits sub-agent sidechains by their parentUuid chains, even interleaved; main by default, each selectable', () => {
    const s = session();
    s.user('Build the app.');
    s.block('msg_1', {
      type: 'tool_use',
      id: 'task_1',
      name: 'Task',
      input: { prompt: 'Write the components' },
    });
    s.block('msg_1', { type: 'tool_use', id: 'task_2', name: 'Task', input: { prompt: 'Write the types' } });
    // Two sub-agents running at once: their lines interleave; each root has parentUuid null.
    const side = (uuid: string, parentUuid: string | null, type: string, message: Json) =>
      s.raw({ parentUuid, isSidechain: true, sessionId: 's1', type, message, uuid });
    side('a1', null, 'user', { role: 'user', content: 'Write the components for the TODO app' });
    side('b1', null, 'user', { role: 'user', content: 'Write the types' });
    side('a2', 'a1', 'assistant', {
      id: 'msg_a',
      role: 'assistant',
      content: [{ type: 'text', text: 'Components done.' }],
    });
    side('b2', 'b1', 'assistant', {
      id: 'msg_b',
      role: 'assistant',
      content: [{ type: 'text', text: 'Types done.' }],
    });
    s.user([
      { type: 'tool_result', tool_use_id: 'task_1', content: [{ type: 'text', text: 'Components done.' }] },
      { type: 'tool_result', tool_use_id: 'task_2', content: [{ type: 'text', text: 'Types done.' }] },
    ]);
    s.block('msg_2', { type: 'text', text: 'The app is built.' });
    const text = s.text();
    const main = read(text);
    expect(main.thread).toBe('main');
    expect(main.entries.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(main.threads).toEqual([
      { id: 'main', label: 'main thread, 5 messages', messages: 5 },
      {
        id: 'sidechain-1',
        label: 'sub-agent: Write the components for the TODO app, 2 messages',
        messages: 2,
      },
      { id: 'sidechain-2', label: 'sub-agent: Write the types, 2 messages', messages: 2 },
    ]);
    const second = read(text, 'sidechain-2');
    expect(second.thread).toBe('sidechain-2');
    expect(second.entries.map((e) => e.parts[0])).toEqual([
      { type: 'text', text: 'Write the types' },
      { type: 'text', text: 'Types done.' },
    ]);
    expect(() => read(text, 'sidechain-3')).toThrow(TranscriptFormatError);
    expect(() => read(text, 'sidechain-3')).toThrow(
      '--thread: no thread "sidechain-3" in this session; its threads: main, sidechain-1, sidechain-2',
    );
  });

  it('counts an image in a tool result by Anthropic’s rule from its real size, never its base64 as text; replay handles it', async () => {
    const s = session();
    s.user([{ type: 'text', text: 'What does this look like?' }, imageBlock(200, 150)]);
    s.block('msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Screenshot', input: {} });
    s.user([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'text', text: 'Screenshot taken.' }, imageBlock(1000, 800)],
      },
    ]);
    s.block('msg_2', { type: 'text', text: 'A login form.' });
    const { entries } = read(s.text());
    const tool = entries[2]!;
    expect(tool.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'toolu_1',
      name: 'Screenshot',
      output: 'Screenshot taken.',
    });
    expect(tool.parts[1]).toMatchObject({ type: 'opaque', kind: 'image', tokens: 1067 });
    expect(entries[0]?.parts[1]).toMatchObject({ type: 'opaque', kind: 'image', tokens: 40 }); // 200*150/750
    const counter = new TokenCounter(createBaton({ contextWindow: 16_000 }).options.tokenizer, 512);
    const base64 = (imageBlock(1000, 800).source.data as string).length;
    expect(base64).toBeGreaterThan(80_000);
    expect(counter.raw(tool)).toBeGreaterThan(1067);
    expect(counter.raw(tool)).toBeLessThan(1100);
    // The engine takes a tool entry holding a result and an image: one model call per reply, no repair.
    const result = await replay(entries, { pinned: [], interval: 10, contextWindow: 16_000 });
    expect(result.steps).toHaveLength(2);
    expect(result.steps.every((step) => step.outcome === 'ok')).toBe(true);
  });

  it('a call interrupted before its result is noted, and Baton answers it with its placeholder', async () => {
    const s = session();
    s.user('Run the tests.');
    s.block('msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'go test' } });
    s.user([{ type: 'text', text: '[Request interrupted by user]' }]);
    s.user('Skip the tests.');
    s.block('msg_2', { type: 'text', text: 'Skipped.' });
    const { entries, notes } = read(s.text());
    expect(notes).toContain(
      '1 tool call(s) without a recorded result (interrupted): Baton answers them with its missing-result placeholder',
    );
    expect(await throughBaton(entries)).toEqual({
      roles: ['user', 'assistant', 'missing-result', 'user', 'assistant'],
      calls: 2,
    });
  });

  it('refuses a malformed line naming it; skips an incomplete last line (a session still being written)', () => {
    const s = session();
    s.user('Hello.');
    s.block('msg_1', { type: 'text', text: 'Hi.' });
    const lines = s.text().trimEnd().split('\n');
    const broken = [lines[0], '{"type":"user", "message": {', lines[1]].join('\n');
    expect(() => read(broken)).toThrow('Claude Code session line 2 is not JSON');
    const live = `${s.text()}{"parentUuid":"uuid-2","type":"user","mess`;
    const { entries, notes } = read(live);
    expect(entries).toHaveLength(2);
    expect(notes).toContain('line 3 is incomplete (the session was still being written): skipped');
    const noMessage = `${lines[0]}\n${JSON.stringify({ type: 'assistant', uuid: 'u9', sessionId: 's1' })}\n`;
    expect(() => read(noMessage)).toThrow('Claude Code session line 2: assistant line without a message');
  });

  it('claims Claude Code files only, even when they open with summary lines', () => {
    const s = session();
    s.raw({ type: 'summary', summary: 'A title', leafUuid: 'x' });
    s.user('Hello.');
    expect(claudeCodeReader.mismatch(textFile('a.jsonl', s.text()))).toBeUndefined();
    const codex = `${JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'x' } })}\n`;
    expect(claudeCodeReader.mismatch(textFile('b.jsonl', codex))).toBe(
      'no user or assistant line with a uuid, sessionId and message in the first 1 lines',
    );
    const chat = JSON.stringify([{ role: 'user', content: 'hi' }], null, 2);
    expect(claudeCodeReader.mismatch(textFile('c.json', chat))).toBe('not JSONL (line 1 is not JSON)');
  });
});

// --- The real sessions -------------------------------------------------------------------

const rawLines = (name: string) => originalLines<Json>(name);

/** What a message says, format aside: role, its text (parts joined), calls and results; opaque parts left out. */
function said(entries: readonly Entry[]) {
  return entries.map((entry) => ({
    role: entry.role,
    text: entry.parts.flatMap((p) => (p.type === 'text' && p.text !== '' ? [p.text] : [])).join('\n'),
    calls: entry.parts.flatMap((p) =>
      p.type === 'tool-call' ? [[p.id, p.name, JSON.stringify(p.input)]] : [],
    ),
    results: entry.parts.flatMap((p) => (p.type === 'tool-result' ? [[p.callId, String(p.output)]] : [])),
  }));
}

/** Model responses in the original: distinct message ids of the main thread's assistant lines. */
const responsesIn = (name: string) =>
  new Set(
    rawLines(name)
      .filter(
        (l) =>
          l.type === 'assistant' && l.isSidechain !== true && (l.message as Json).model !== '<synthetic>',
      )
      .map((l) => (l.message as Json).id),
  ).size;

async function replayed(file: string, ...extra: string[]) {
  const out = join(dir, `${extra.join('-') || 'main'}-${file}.html`);
  const { code, output } = await runCli([
    'replay',
    original(file),
    '--window',
    '16k',
    '--report',
    out,
    ...extra,
  ]);
  return { code, output, calls: Number(/(\d+) model calls/.exec(readFileSync(out, 'utf8'))?.[1]) };
}

describe.skipIf(skipCorpus)('claude-code reader on the real sessions', () => {
  const tokenizer = createBaton({ contextWindow: 128_000 }).options.tokenizer;

  it('nextjs: the main thread says what its hand-converted form says; five sub-agents, the longest 106 messages', () => {
    const transcript = readSession(original('coding-claude-code-nextjs.jsonl'));
    expect(transcript.format).toBe('claude-code');
    expect(transcript.thread).toBe('main');
    expect(transcript.entries).toHaveLength(22);
    expect(said(transcript.entries)).toEqual(
      said(fromOpenAIChat(converted('coding-claude-code-nextjs-main.openai.json'))),
    );
    const threads = transcript.threads ?? [];
    expect(threads.map((t) => t.id)).toEqual([
      'main',
      'sidechain-1',
      'sidechain-2',
      'sidechain-3',
      'sidechain-4',
      'sidechain-5',
    ]);
    const longest = [...threads].sort((a, b) => b.messages - a.messages)[0]!;
    expect(longest).toMatchObject({ id: 'sidechain-5', messages: 106 });
    expect(longest.label).toMatch(/^sub-agent: Create the main page layout .*, 106 messages$/);
    const sub = readSession(original('coding-claude-code-nextjs.jsonl'), { thread: longest.id });
    expect(sub.thread).toBe('sidechain-5');
    expect(said(sub.entries)).toEqual(
      said(fromOpenAIChat(converted('coding-claude-code-nextjs-subagent.openai.json'))),
    );
  });

  it('gomod: one duplicated uuid line dropped, 66 messages as in the hand-converted form, thinking kept and counted', () => {
    const name = 'coding-claude-code-gomod.jsonl';
    const uuids = rawLines(name).map((l) => l.uuid);
    expect(uuids.length - new Set(uuids).size).toBe(1);
    const { entries, notes } = readSession(original(name));
    expect(notes).toContain('1 duplicated line(s) (same uuid) dropped');
    expect(entries).toHaveLength(66);
    const reference = fromOpenAIChat(converted('coding-claude-code-gomod.openai.json'));
    expect(said(entries)).toEqual(said(reference));

    // The Anthropic form keeps the thinking blocks: the same five, the same text.
    const anthropic = converted<{ content: unknown }>('coding-claude-code-gomod.anthropic.json').flatMap(
      (m) =>
        Array.isArray(m.content)
          ? (m.content as Json[]).filter((b) => b.type === 'thinking').map((b) => b.thinking)
          : [],
    );
    const thinking = entries.flatMap((e) =>
      e.parts.flatMap((p) => (p.type === 'opaque' && p.kind === 'thinking' ? [p.text ?? ''] : [])),
    );
    expect(thinking).toHaveLength(5);
    expect(thinking).toEqual(anthropic);
    const thinkingTokens = thinking.reduce((sum, text) => sum + tokenizer.count(text), 0);
    expect(thinkingTokens).toBeGreaterThan(0);
    // inspect counts them: the file's total exceeds the OpenAI form's (which drops them) by about the thinking.
    const ours = inspectTranscript(entries, tokenizer, 100_000).total;
    const theirs = inspectTranscript(reference, tokenizer, 100_000).total;
    expect(Math.abs(ours - theirs - thinkingTokens)).toBeLessThanOrEqual(Math.max(5, thinkingTokens * 0.02));
  });

  it('replays each original through the CLI: exit 0, one model call per model response in the file', async () => {
    for (const name of ['coding-claude-code-gomod.jsonl', 'coding-claude-code-nextjs.jsonl']) {
      const run = await replayed(name);
      expect(run.code, run.output).toBe(0);
      expect(run.calls).toBe(responsesIn(name));
    }
    expect(responsesIn('coding-claude-code-gomod.jsonl')).toBe(31);
    // The longest sub-agent: its hand-converted form has one assistant message per model response.
    const sub = await replayed('coding-claude-code-nextjs.jsonl', '--thread', 'sidechain-5');
    expect(sub.code, sub.output).toBe(0);
    expect(sub.output).toContain('* sidechain-5: sub-agent: Create the main page layout');
    expect(sub.calls).toBe(
      converted('coding-claude-code-nextjs-subagent.openai.json').filter((m) => m.role === 'assistant')
        .length,
    );
    const unknown = await runCli([
      'inspect',
      original('coding-claude-code-nextjs.jsonl'),
      '--thread',
      'nope',
    ]);
    expect(unknown.code).toBe(2);
  });
});

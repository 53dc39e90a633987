import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBaton, type Entry, fromOpenAIChat, type OpenAIMessage } from '@baton/core';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { readSession } from '../formats.ts';
import { main } from '../main.ts';
import { replay } from '../replay.ts';
import { codexReader } from './codex.ts';
import { sessionFile } from './session-file.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
/** ../shared/corpus/sessions beside the repository: the real files, never copied into it. */
const CORPUS = resolve(repoRoot, '../shared/corpus/sessions');
const ORIGINAL = join(CORPUS, 'originals', 'coding-codex-vscode-gomod.jsonl');
const skipCorpus = skipUnless(
  existsSync(ORIGINAL) && existsSync(join(CORPUS, 'openai')),
  `../shared/corpus/sessions (at ${CORPUS}) for the Codex fixture tests`,
);

const dir = mkdtempSync(join(tmpdir(), 'baton-codex-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (text: string) => new TextEncoder().encode(text);
const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
const read = (text: string, thread?: string) =>
  readSession(sessionFile('rollout.jsonl', bytes(text)), thread === undefined ? {} : { thread });

const ITEMS = [
  {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }],
  },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Bump go.mod to 1.24.' }] },
  {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: '**Reading go.mod**' }],
    content: null,
    encrypted_content: null,
  },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading go.mod.' }] },
  { type: 'function_call', name: 'shell', arguments: '{"command":["cat","go.mod"]}', call_id: 'call_1' },
  {
    type: 'function_call_output',
    call_id: 'call_1',
    output: '{"output":"go 1.23\\n","metadata":{"exit_code":0}}',
  },
  {
    type: 'custom_tool_call',
    name: 'apply_patch',
    input: '*** Begin Patch\n-go 1.23\n+go 1.24',
    call_id: 'call_2',
  },
  { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Success. Updated go.mod' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done: go 1.24.' }] },
];
const wrap = (type: string, payload: unknown) => ({ timestamp: '2025-09-19T09:02:12.457Z', type, payload });

/** A rollout in the wrapped form, as Codex 0.3x writes it. */
const wrapped = (instructions: string | null = null) =>
  jsonl([
    wrap('session_meta', { id: 'r1', cwd: '/repo', cli_version: '0.39.0', instructions }),
    ...ITEMS.slice(0, 2).map((item) => wrap('response_item', item)),
    wrap('event_msg', { type: 'user_message', message: 'Bump go.mod to 1.24.' }),
    wrap('turn_context', { cwd: '/repo', model: 'gpt-5' }),
    ...ITEMS.slice(2).map((item) => wrap('response_item', item)),
    wrap('event_msg', { type: 'token_count', info: null }),
  ]);

const roles = (entries: readonly Entry[]) => entries.map((e) => e.role);

describe('codex reader', () => {
  it('reads the wrapped form: response items only, one assistant entry per response, instructions as the system prompt', () => {
    const transcript = read(wrapped('You are Codex.'));
    expect(transcript.format).toBe('codex');
    expect(roles(transcript.entries)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(transcript.entries[0]?.parts).toEqual([{ type: 'text', text: 'You are Codex.' }]);
    expect(transcript.entries[3]?.parts.map((p) => p.type)).toEqual(['opaque', 'text', 'tool-call']);
    expect(transcript.entries[3]?.parts[0]).toMatchObject({ kind: 'reasoning', text: '**Reading go.mod**' });
    expect(transcript.entries[6]?.parts).toEqual([
      { type: 'tool-result', callId: 'call_2', name: 'apply_patch', output: 'Success. Updated go.mod' },
    ]);
    expect(transcript.notes).toEqual([
      'lines skipped (not model input): event_msg 2, turn_context 1',
      '1 reasoning items kept, counted at their summary text (1 have one)',
    ]);
  });

  it('reads the bare form (each line the item) to the same entries, and says when no system prompt is recorded', () => {
    const bare = jsonl([
      { id: 'r1', timestamp: '2025-05-01T10:00:00Z', instructions: null },
      ...ITEMS,
      { record_type: 'state' },
    ]);
    const fromBare = read(bare);
    const fromWrapped = read(wrapped());
    expect(fromBare.format).toBe('codex');
    expect(fromBare.entries).toEqual(fromWrapped.entries);
    expect(fromBare.notes).toContain(
      "no system prompt: the rollout does not record Codex's base instructions",
    );
    // Newer rollouts record the base instructions instead.
    const withBase = jsonl([
      wrap('session_meta', { id: 'r1', instructions: null, base_instructions: { text: 'Base prompt.' } }),
      wrap('response_item', ITEMS[1]),
    ]);
    expect(read(withBase).entries[0]).toMatchObject({
      role: 'system',
      parts: [{ type: 'text', text: 'Base prompt.' }],
    });
  });

  it('counts an input image by OpenAI’s rule and developer messages as system entries', () => {
    const ihdr = (w: number, h: number) => {
      const b = Buffer.alloc(24);
      Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(b);
      b.writeUInt32BE(w, 16);
      b.writeUInt32BE(h, 20);
      return b.toString('base64');
    };
    const { entries } = read(
      jsonl([
        wrap('response_item', {
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: 'Approvals: never.' }],
        }),
        wrap('response_item', {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is on this screen?' },
            { type: 'input_image', image_url: `data:image/png;base64,${ihdr(1024, 1024)}` },
          ],
        }),
      ]),
    );
    expect(roles(entries)).toEqual(['system', 'user']);
    expect(entries[1]?.parts[1]).toMatchObject({ type: 'opaque', kind: 'image', tokens: 765 });
  });

  it('refuses a malformed line naming it, skips an incomplete last line, refuses --thread', () => {
    const lines = wrapped().trimEnd().split('\n');
    expect(() => read([lines[0], '{"type":', ...lines.slice(1)].join('\n'))).toThrow(
      'Codex rollout line 2 is not JSON',
    );
    const live = read(`${wrapped()}{"timestamp":"2025`);
    expect(live.notes).toContain('line 14 is incomplete (the session was still being written): skipped');
    const noId = jsonl([
      wrap('session_meta', { id: 'r' }),
      wrap('response_item', { type: 'function_call', name: 'shell' }),
    ]);
    expect(() => read(noId)).toThrow('Codex rollout line 2: a function_call item has no call_id or no name');
    expect(() => read(wrapped(), 'main')).toThrow(
      '--thread: a Codex rollout holds one conversation (no thread "main")',
    );
  });

  it('an unanswered call (interrupted turn) still replays: Baton supplies the missing result', async () => {
    const { entries } = read(
      jsonl([
        wrap('response_item', ITEMS[1]),
        wrap('response_item', ITEMS[4]),
        wrap('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Stop.' }],
        }),
        wrap('response_item', ITEMS[8]),
      ]),
    );
    const prepared = await createBaton({ contextWindow: 16_000 }).session('t').prepare({ entries });
    expect(prepared.entries.map((e) => e.meta?.synthetic ?? e.role)).toEqual([
      'user',
      'assistant',
      'missing-result',
      'user',
      'assistant',
    ]);
    expect((await replay(entries, { pinned: [], interval: 10, contextWindow: 16_000 })).steps).toHaveLength(
      2,
    );
  });

  it('claims rollouts only', () => {
    const mismatch = (text: string) => codexReader.mismatch(sessionFile('f', bytes(text)));
    expect(mismatch(wrapped())).toBeUndefined();
    const claude = jsonl([
      { type: 'user', uuid: 'u1', sessionId: 's', message: { role: 'user', content: 'hi' } },
    ]);
    expect(mismatch(claude)).toBe(
      'line 1 is a "user" line, not a rollout line (session_meta / response_item with a payload, or a Responses item)',
    );
    expect(mismatch(JSON.stringify([{ role: 'user', content: 'hi' }]))).toMatch(
      /^line 1 is a JSON array, not a rollout line/,
    );
    expect(mismatch(JSON.stringify({ messages: [] }, null, 2))).toBe('not JSONL (line 1 is not JSON)');
    expect(
      readSession(sessionFile('chat.json', bytes(JSON.stringify([{ role: 'user', content: 'hi' }])))).format,
    ).toBe('openai-chat');
  });
});

describe.skipIf(skipCorpus)('codex reader on the real rollout', () => {
  const lines = () =>
    readFileSync(ORIGINAL, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; payload: { type?: string } });

  it('says what its hand-converted form says, reasoning items aside', () => {
    const { entries, notes } = readSession(ORIGINAL);
    const reference = fromOpenAIChat(
      (
        JSON.parse(readFileSync(join(CORPUS, 'openai', 'coding-codex-vscode-gomod.openai.json'), 'utf8')) as {
          messages: OpenAIMessage[];
        }
      ).messages,
    );
    expect(entries).toHaveLength(39);
    const said = (list: readonly Entry[]) =>
      list.map((entry) => ({
        role: entry.role,
        text: entry.parts.flatMap((p) => (p.type === 'text' && p.text !== '' ? [p.text] : [])).join('\n'),
        calls: entry.parts.flatMap((p) =>
          p.type === 'tool-call' ? [[p.id, p.name, JSON.stringify(p.input)]] : [],
        ),
        results: entry.parts.flatMap((p) =>
          p.type === 'tool-result' ? [[p.callId, p.name, String(p.output)]] : [],
        ),
      }));
    expect(said(entries)).toEqual(said(reference));
    const reasoning = entries.flatMap((e) =>
      e.parts.filter((p) => p.type === 'opaque' && p.kind === 'reasoning'),
    );
    expect(reasoning).toHaveLength(lines().filter((l) => l.payload.type === 'reasoning').length);
    expect(notes).toContain('lines skipped (not model input): event_msg 29, turn_context 19');
  });

  it('replays through the CLI: exit 0, one model call per response (each response has its token_count event)', async () => {
    const out = join(dir, 'codex.html');
    const said: string[] = [];
    const io = { out: (t: string) => said.push(t), err: (t: string) => said.push(t), isTTY: false };
    const code = await main(['replay', ORIGINAL, '--window', '16k', '--report', out], io);
    expect(code, said.join('')).toBe(0);
    const responses = lines().filter(
      (l) => l.type === 'event_msg' && l.payload.type === 'token_count',
    ).length;
    expect(responses).toBe(19);
    expect(readFileSync(out, 'utf8')).toContain(`${responses} model calls`);
  });
});

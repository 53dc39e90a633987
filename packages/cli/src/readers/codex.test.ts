import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Entry, fromOpenAIChat } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { readSession } from '../formats.ts';
import { codexReader } from './codex.ts';
import { converted, original, originalLines, skipWithoutCorpus } from './corpus.test-support.ts';
import { jsonl, pngBase64, runCli, scratchDir, textFile, throughBaton } from './fixtures.test-support.ts';

const NAME = 'coding-codex-vscode-gomod.jsonl';
const ORIGINAL = original(NAME);
const skipCorpus = skipWithoutCorpus('Codex fixture tests');
const dir = scratchDir('codex');

const read = (text: string, thread?: string) =>
  readSession(textFile('rollout.jsonl', text), thread === undefined ? {} : { thread });

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
            { type: 'input_image', image_url: `data:image/png;base64,${pngBase64(1024, 1024)}` },
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
    expect(await throughBaton(entries)).toEqual({
      roles: ['user', 'assistant', 'missing-result', 'user', 'assistant'],
      calls: 2,
    });
  });

  it('claims rollouts only', () => {
    const mismatch = (text: string) => codexReader.mismatch(textFile('f', text));
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
    expect(readSession(textFile('chat.json', JSON.stringify([{ role: 'user', content: 'hi' }]))).format).toBe(
      'openai-chat',
    );
  });
});

describe.skipIf(skipCorpus)('codex reader on the real rollout', () => {
  const lines = () => originalLines<{ type: string; payload: { type?: string } }>(NAME);

  it('says what its hand-converted form says, reasoning items aside', () => {
    const { entries, notes } = readSession(ORIGINAL);
    const reference = fromOpenAIChat(converted('coding-codex-vscode-gomod.openai.json'));
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
    const run = await runCli(['replay', ORIGINAL, '--window', '16k', '--report', out]);
    expect(run.code, run.output).toBe(0);
    const responses = lines().filter(
      (l) => l.type === 'event_msg' && l.payload.type === 'token_count',
    ).length;
    expect(responses).toBe(19);
    expect(readFileSync(out, 'utf8')).toContain(`${responses} model calls`);
  });
});

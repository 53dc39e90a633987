import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromOpenAIChat, type OpenAIMessage } from '@baton/core';
import { afterAll, describe, expect, it } from 'vitest';
import { replay } from './replay.ts';
import { baton } from './run-main.test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 13 + seed) % 97}`).join(' ');

/** A tool loop whose last results are each bigger than a small window: unfit steps, checkpoints. */
function heavy(): OpenAIMessage[] {
  const messages: OpenAIMessage[] = [
    { role: 'system', content: 'You read logs.' },
    { role: 'user', content: 'Read every log.' },
  ];
  for (let i = 0; i < 8; i++) {
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'read_log', arguments: `{"n":${i}}` } },
        ],
      },
      { role: 'tool', tool_call_id: `c${i}`, content: words(i < 5 ? 300 : 3_000, i) },
    );
  }
  messages.push({ role: 'assistant', content: 'Done.' });
  return messages;
}

const path = join(dir, 'heavy.json');
writeFileSync(path, JSON.stringify(heavy()));

describe('what a first run trips over', () => {
  it('replays the same file to the same numbers, unfit steps and their checkpoints included', async () => {
    const entries = fromOpenAIChat(heavy());
    const first = await replay(entries, { contextWindow: 2_000, pinned: ['read_log'] });
    const second = await replay(entries, { contextWindow: 2_000, pinned: ['read_log'] });
    expect(first.steps.some((s) => s.outcome === 'unfit')).toBe(true);
    expect(second.steps.map((s) => s.baton)).toEqual(first.steps.map((s) => s.baton));
    expect(second.policies).toEqual(first.policies);
    // An unfit step makes no call: counted as unfit, never as a prompt sent over the budget.
    const baton = first.policies.find((p) => p.key === 'baton');
    expect(baton?.unfit).toBeGreaterThan(0);
    expect(baton?.overBudget).toBe(0);
  });

  it('refuses a --store file that is not a database, or holds a replay, before replaying', async () => {
    const notDb = join(dir, 'not-a-db.sqlite');
    writeFileSync(notDb, 'this is not a database, just text that is long enough to have a header');
    const bad = await baton('replay', path, '--window', '2k', '--store', `sqlite:${notDb}`);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--store: cannot use .* as a SQLite store/);
    expect(bad.err).not.toContain('step 1:');
    expect(bad.err).not.toMatch(/\n\s+at /);

    const db = join(dir, 'replay.db');
    expect((await baton('replay', path, '--window', '2k', '--store', `sqlite:${db}`)).code).toBe(0);
    const again = await baton('replay', path, '--window', '2k', '--store', `sqlite:${db}`);
    expect(again.code).toBe(2);
    expect(again.err).toContain('holds a replay already');
  });

  it('says the model calls it replays, notes a pinned tool no call uses, and names --window for an unknown model', async () => {
    const run = await baton('replay', path, '--window', '8k', '--pinned', 'read_logs');
    expect(run.code).toBe(0);
    expect(run.err).toContain('9 model calls');
    expect(run.err).toContain('--pinned read_logs: no call in this file uses a tool of that name');
    const unknown = await baton('replay', path, '--model', 'gpt-9000');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("--model: 'gpt-9000' is not in the model catalog; pass --window");
  });

  it('never writes into the transcript or another application’s database', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const appDb = join(dir, 'mastra.db');
    const db = new DatabaseSync(appDb);
    db.exec('CREATE TABLE mastra_messages (id TEXT PRIMARY KEY, content TEXT)');
    db.close();
    const foreign = await baton('replay', path, '--window', '8k', '--store', `sqlite:${appDb}`);
    expect(foreign.code).toBe(2);
    expect(foreign.err).toContain("is another application's database (tables mastra_messages)");
    const onInput = await baton('replay', path, '--window', '8k', '--report', path);
    expect(onInput.code).toBe(2);
    expect(onInput.err).toContain('--report: that is the transcript itself');
  });

  it('escapes control characters a session file puts in tool names and previews', async () => {
    const evil = join(dir, 'evil.json');
    writeFileSync(
      evil,
      JSON.stringify([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'x\u001b]52;c;aGk=\u0007', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: '\u001b[2Jcleared' },
      ]),
    );
    const run = await baton('inspect', evil);
    expect(run.code).toBe(0);
    expect(run.out).not.toContain('\u001b');
    expect(run.out).not.toContain('\u0007');
    expect(run.out).toContain('\\u001b');
  });

  it('answers --version, an empty file and a mistyped option in one line each', async () => {
    const version = await baton('--version');
    expect(version.code).toBe(0);
    expect(version.out).toMatch(/^\d+\.\d+\.\d+/);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    const emptyRun = await baton('inspect', empty);
    expect(emptyRun.code).toBe(2);
    expect(emptyRun.err).toBe(`baton: ${empty} is empty\n`);
    const typo = await baton('replay', path, '--windw', '16k');
    expect(typo.code).toBe(2);
    expect(typo.err).toBe(
      "baton: Unknown option '--windw'\nRun 'baton --help' for the commands and options.\n",
    );
  });
});

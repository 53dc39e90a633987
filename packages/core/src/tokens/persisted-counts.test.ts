import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { sqliteStore } from '../stores/sqlite-store.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { gptTokenizer, type Tokenizer } from './tokenizer.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The default tokenizer, counting the texts it is asked to tokenize. */
function countingTokenizer(): Tokenizer & { texts: number } {
  const base = gptTokenizer('o200k_base');
  const tokenizer = {
    name: base.name,
    texts: 0,
    count(text: string) {
      tokenizer.texts++;
      return base.count(text);
    },
  };
  return tokenizer;
}

/** A long conversation that fits a large window: a new process must count all of it. */
function conversation(messages: number): Entry[] {
  return Array.from({ length: messages }, (_, i) =>
    createEntry(
      i,
      i % 2 === 0 ? 'user' : 'assistant',
      `message ${i}: ${'lorem ipsum dolor '.repeat(4)}${i * 7919}`,
    ),
  );
}

describe('token counts persisted with the session', () => {
  it('a new process resuming a 5,000-message conversation from SQLite tokenizes none of the known messages', async () => {
    const path = join(dir, 'resume.db');
    const history = conversation(5_000);
    const first = countingTokenizer();
    const writer = sqliteStore({ path });
    await createBaton({ contextWindow: 1_000_000, tokenizer: first, store: writer })
      .session('long')
      .prepare({ entries: history.slice(0, 4_999) });
    expect(first.texts).toBeGreaterThanOrEqual(4_999);
    await writer.close();

    // A restarted worker: a new store handle, a new Baton, new entry objects, one new message.
    const resumed = countingTokenizer();
    const reader = sqliteStore({ path });
    const fresh = history.map((e) => createEntry(e.seq, e.role, e.parts));
    const prepared = await createBaton({ contextWindow: 1_000_000, tokenizer: resumed, store: reader })
      .session('long')
      .prepare({ entries: fresh });
    await reader.close();
    // Only the new message (and no system prompt, tools or notices here) was tokenized.
    expect(resumed.texts).toBeLessThanOrEqual(2);
    // …and the counts are the same as a recount's.
    const recount = countingTokenizer();
    const exact = await createBaton({ contextWindow: 1_000_000, tokenizer: recount })
      .session('long')
      .prepare({ entries: history.map((e) => createEntry(e.seq, e.role, e.parts)) });
    expect(prepared.tokens.after).toBe(exact.tokens.after);
    expect(recount.texts).toBeGreaterThanOrEqual(5_000);
  });

  it('counts afresh with another tokenizer', async () => {
    const path = join(dir, 'other.db');
    const history = conversation(200);
    const store = sqliteStore({ path });
    await createBaton({ contextWindow: 1_000_000, store }).session('s').prepare({ entries: history });
    const other = countingTokenizer();
    const renamed = { name: 'another/tokenizer', count: (text: string) => other.count(text) };
    await createBaton({ contextWindow: 1_000_000, tokenizer: renamed, store })
      .session('s')
      .prepare({ entries: history.map((e) => createEntry(e.seq, e.role, e.parts)) });
    expect(other.texts).toBeGreaterThanOrEqual(200);
    await store.close();
  });
});

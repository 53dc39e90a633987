import { describe, expect, it } from 'vitest';
import type { Store } from '../contracts/store.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry, type Entry, entryText, outputText } from '../transcript/transcript.ts';
import { BatonConfigError, BatonInputError } from '../util/errors.ts';
import { createBaton } from './baton.ts';
import { toolLoop, words } from './hostile-input.fixtures.ts';

// Each case here was a failure of an adversarial run against core: a crash, a hang, or data
// silently replaced. Every test fails on the code before its fix.

describe('structurally invalid entries', () => {
  it('are refused at the boundary with a BatonInputError naming entry and field; the store is not touched and the session stays usable', async () => {
    const inner = memoryStore();
    const calls: string[] = [];
    const store = Object.fromEntries(
      Object.entries(inner).map(([name, method]) => [
        name,
        typeof method === 'function'
          ? (...args: unknown[]) => {
              calls.push(name);
              return (method as (...a: unknown[]) => unknown).apply(inner, args);
            }
          : method,
      ]),
    ) as unknown as Store;
    const session = createBaton({ contextWindow: 8_000, store }).session('bad-input');
    const history = toolLoop(12);
    const first = await session.prepare({ entries: history });
    expect(first.outcome).toBe('compacted');

    const bad: Array<[string, (entry: Entry) => unknown]> = [
      ['parts', (e) => ({ ...e, parts: null })],
      ['parts', (e) => ({ ...e, parts: { 0: e.parts[0] } })],
      ['parts[0].text', (e) => ({ ...e, parts: [{ type: 'text', text: 42 }] })],
      ['parts[0].id', (e) => ({ ...e, parts: [{ type: 'tool-call', name: 'read_file', input: {} }] })],
      [
        'parts[0].callId',
        (e) => ({ ...e, parts: [{ type: 'tool-result', name: 'read_file', output: 'x' }] }),
      ],
      ['role', (e) => ({ ...e, role: 'bot' })],
      ['seq', (e) => ({ ...e, seq: 2.5 })],
      ['key', ({ key: _, ...rest }) => rest],
      ['', () => 'not an entry'],
    ];
    for (const [field, edit] of bad) {
      const entries = history.map((e, i) => (i === 7 ? edit(e) : e)) as Entry[];
      calls.length = 0;
      const refused = session.prepare({ entries });
      await expect(refused).rejects.toThrow(BatonInputError);
      const error = (await refused.catch((e: unknown) => e)) as BatonInputError;
      const path = field ? `entries[7].${field}` : 'entries[7]';
      expect(error.path).toBe(path);
      expect(error.entryIndex).toBe(7);
      expect(error.entryKey).toBe(field === 'key' || field === '' ? undefined : history[7]!.key);
      expect(error.message.startsWith(`[baton] [input] ${path}: expected `)).toBe(true);
      // Refused before any work: nothing read, nothing written (ledger, state, archive).
      expect(calls).toEqual([]);
    }

    // The same session goes on as if the refused calls never happened: its next call answers
    // exactly what a session that never saw them answers.
    const again = await session.prepare({ entries: history });
    // The spy sees a valid call's store traffic (so an empty list above means none).
    expect(calls.length).toBeGreaterThan(0);
    const control = createBaton({ contextWindow: 8_000 }).session('control');
    await control.prepare({ entries: history });
    const expected = await control.prepare({ entries: history });
    const shape = (p: typeof again) => ({
      keys: p.entries.map((e) => e.key),
      tokens: p.tokens,
      trailer: p.trailer,
      system: p.system,
    });
    expect(shape(again)).toEqual(shape(expected));
  });

  it('a numeric text no longer fails inside the tokenizer ("Model name must be provided")', async () => {
    const session = createBaton({ contextWindow: 8_000 }).session('numeric');
    const entries = [
      { key: 'm0', seq: 0, role: 'user', parts: [{ type: 'text', text: 7 }] },
    ] as unknown as Entry[];
    await expect(session.prepare({ entries })).rejects.toThrow(
      '[baton] [input] entries[0].parts[0].text: expected a string, received number (entry key "m0")',
    );
    const prepared = await session.prepare({ entries: [createEntry(0, 'user', 'seven', 'm0')] });
    expect(prepared.outcome).toBe('ok');
    expect(entryText(prepared.entries[0]!)).toBe('seven');
  });
});

describe('sessions stay apart', () => {
  it("a checkpoint is readable only from its own session, and its ref cannot be guessed from another's", async () => {
    const store = memoryStore();
    const baton = createBaton({ contextWindow: 1_000, store });
    const unfitIn = async (id: string) => {
      const session = baton.session(id);
      await session.notes.write('secret', `NOTES OF ${id}`);
      const prepared = await session.prepare({
        entries: [createEntry(0, 'user', 'go')],
        system: words(3_000, 1),
      });
      if (prepared.outcome !== 'unfit') throw new Error('expected unfit');
      return { session, ref: prepared.checkpointRef };
    };
    const a = await unfitIn('A');
    const b = await unfitIn('B');
    expect((await a.session.readCheckpoint(a.ref))?.notes).toEqual([
      expect.objectContaining({ text: expect.stringContaining('NOTES OF A') }),
    ]);
    // Before: session B read A's checkpoint, notes included.
    expect(await b.session.readCheckpoint(a.ref)).toBeUndefined();
    // Same sequence number in both sessions, different unguessable suffixes.
    expect(a.ref.replace(/^A\//, '')).not.toBe(b.ref.replace(/^B\//, ''));
    expect(a.ref).toMatch(/^A\/checkpoint-1-[0-9a-f]{16}$/);
  });

  it('an archive search limit that is not a whole number of at least 1 is refused the same way on every store', async () => {
    const session = createBaton({ contextWindow: 8_000 }).session('s');
    for (const limit of [-1, 0, Number.NaN, 1.5])
      await expect(session.archive.search('x', { limit })).rejects.toThrow(BatonConfigError);
    await expect(session.archive.search('x', { limit: 3 })).resolves.toEqual([]);
  });

  it('a session id with a lone surrogate is refused (stores would keep it as U+FFFD, shared with others)', () => {
    const baton = createBaton({ contextWindow: 8_000 });
    for (const id of ['p\uD800', 'p\uDC00', '\uDC00\uD800'])
      expect(() => baton.session(id)).toThrow(BatonConfigError);
    for (const id of ['p\uFFFD', 'p\uD83D\uDE00', 'plain']) expect(() => baton.session(id)).not.toThrow();
  });
});

describe('recall refs', () => {
  it('a host id containing # is recallable by the ref Baton advertised for it', async () => {
    const session = createBaton({ contextWindow: 8_000, targetAt: 0.5, minCompactionGain: 0.1 }).session(
      'hash-ids',
    );
    const history = toolLoop(12).map((e) => ({ ...e, key: `thread#7/${e.key}` }));
    const prepared = await session.prepare({ entries: history });
    const folded = prepared.entries.find((e) => e.meta?.synthetic === 'folded')!;
    const ref = /recall\(\{ "ref": "([^"]+)" \}\)/.exec(entryText(folded))?.[1];
    expect(ref).toBe(folded.key);
    const recall = session.tools.find((t) => t.name === 'recall')!;
    const answer = (await recall.execute({ ref })) as { content: string };
    const original = history.find((e) => e.key === folded.key)!;
    expect(answer.content).toBe(outputText((original.parts[0] as { output: unknown }).output));
  });
});

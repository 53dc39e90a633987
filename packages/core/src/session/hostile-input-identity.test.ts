import { describe, expect, it } from 'vitest';
import type { BatonOptions } from '../budget/options.ts';
import { defineStage } from '../contracts/stage.ts';
import type { Store } from '../contracts/store.ts';
import type { Summarizer } from '../contracts/summarizer.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { sqliteStore } from '../stores/sqlite-store.ts';
import { createEntry, type Entry, entryText, outputText } from '../transcript/transcript.ts';
import { createBaton } from './baton.ts';
import { toolLoop, words } from './hostile-input.fixtures.ts';

// Each case here was a failure of an adversarial run against core: a crash, a hang, or data
// silently replaced. Every test fails on the code before its fix.

describe('host entries are identified by id and content', () => {
  it('an entry edited in place (same id, new text) is shown as edited, and the old text stays recallable', async () => {
    const baton = createBaton({ contextWindow: 8_000, targetAt: 0.5, minCompactionGain: 0.1 });
    const session = baton.session('edit');
    const history = toolLoop(12);
    const first = await session.prepare({ entries: history });
    expect(first.outcome).toBe('compacted');
    const folded = first.entries.find((e) => e.meta?.synthetic === 'folded')!;
    const original = history.find((e) => e.key === folded.key)!;
    // The host edits that result in place: same id, same position, new content.
    const edited = createEntry(
      original.seq,
      'tool',
      [
        {
          type: 'tool-result',
          callId: (original.parts[0] as { callId: string }).callId,
          name: 'read_file',
          output: 'EDITED: the file was rewritten',
        },
      ],
      original.key,
    );
    const next = await session.prepare({ entries: history.map((e) => (e === original ? edited : e)) });
    const shown = next.entries.find((e) => e.seq === original.seq)!;
    // Before: the stale fold of the old content replaced the new text (neither sent nor archived).
    expect(shown.meta?.synthetic).toBeUndefined();
    expect(entryText(shown)).toBe('EDITED: the file was rewritten');
    expect((await session.archive.get(original.key))?.entry.parts).toEqual(original.parts);
    // Under a key of its own, so when it is evicted in turn both texts are recallable.
    expect(shown.key).toMatch(new RegExp(`^${original.key}~[0-9a-f]{12}$`));
    const later = [...history.map((e) => (e === original ? edited : e))];
    for (let s = 0; s < 30; s++) {
      const id = `late${s}`;
      later.push(
        createEntry(
          later.length,
          'assistant',
          [{ type: 'tool-call', id, name: 'read_file', input: { path: `g${s}.ts` } }],
          `id-${later.length}`,
        ),
        createEntry(
          later.length + 1,
          'tool',
          [{ type: 'tool-result', callId: id, name: 'read_file', output: words(300, 100 + s) }],
          `id-${later.length + 1}`,
        ),
      );
      await session.prepare({ entries: later });
    }
    expect(entryText((await session.archive.get(shown.key))!.entry)).toBe('EDITED: the file was rewritten');
    expect((await session.archive.get(original.key))?.entry.parts).toEqual(original.parts);
  });

  it('two host entries sharing an id are both kept: each in the projection or recallable', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('dup');
    const history = toolLoop(12);
    // A host that reuses an id: the third result carries the first result's id.
    const reused = history.findIndex((e, i) => e.role === 'tool' && i > 5);
    history[reused] = { ...history[reused]!, key: history[2]!.key };
    const prepared = await session.prepare({ entries: history });
    expect(prepared.outcome).toBe('compacted');
    for (const entry of [history[2]!, history[reused]!]) {
      const text = outputText((entry.parts[0] as { output: unknown }).output);
      const inPrompt = prepared.entries.some((e) => e.meta?.synthetic === undefined && entryText(e) === text);
      const archived = (await session.archive.search(text.slice(0, 40), { limit: 50 })).some(
        (r) => entryText(r.entry) === text,
      );
      expect(inPrompt || archived).toBe(true);
    }
  });

  it('host ids with lone surrogates stay apart in a SQLite archive: every entry in the projection or recallable', async () => {
    const store = sqliteStore({ path: ':memory:' });
    const session = createBaton({ contextWindow: 8_000, store }).session('lone');
    // Two ids SQLite would both write as 'r\uFFFD': without escaping, one record's insert is a no-op.
    const history = toolLoop(12).map((entry, i) =>
      entry.role === 'tool' ? { ...entry, key: i % 4 === 0 ? 'r\uD800' : 'r\uDC00' } : entry,
    );
    const prepared = await session.prepare({ entries: history });
    expect(prepared.outcome).toBe('compacted');
    for (const entry of history.filter((e) => e.role === 'tool')) {
      const text = outputText((entry.parts[0] as { output: unknown }).output);
      const inPrompt = prepared.entries.some((e) => e.meta?.synthetic === undefined && entryText(e) === text);
      const archived = (await session.archive.search(text.slice(0, 40), { limit: 50 })).some(
        (r) => entryText(r.entry) === text,
      );
      expect(inPrompt || archived, text.slice(0, 20)).toBe(true);
    }
    await store.close();
  });

  it("a summarizer that edits its input changes neither the host's entries nor the archive", async () => {
    const vandal: Summarizer = async ({ entries }) => {
      for (const entry of entries) {
        entry.parts.length = 0;
        entry.key = 'vandalized';
      }
      return 'summary';
    };
    const baton = createBaton({ contextWindow: 6_000, summarizer: vandal });
    const session = baton.session('vandal');
    const history: Entry[] = [createEntry(0, 'user', 'OPENING request', 'u0')];
    for (let t = 0; t < 40; t++) {
      history.push(createEntry(history.length, 'assistant', words(120, t), `a${t}`));
      history.push(createEntry(history.length, 'user', words(30, t + 100), `u${t + 1}`));
    }
    const snapshot = structuredClone(history);
    const prepared = await session.prepare({ entries: history });
    expect(prepared.events.some((e) => e.type === 'stage-completed' && e.stage === 'summarize')).toBe(true);
    expect(history).toEqual(snapshot);
    expect((await session.archive.get('a0'))?.entry).toEqual(snapshot[1]);
  });
});

describe('nothing Baton hands to user code aliases the host', () => {
  it("a custom stage or a probe judge that edits what it is given changes none of the host's entries", async () => {
    let vandalized = 0;
    const vandalize = (entries: readonly Entry[]) => {
      vandalized++;
      for (const entry of entries) {
        entry.parts.length = 0;
        entry.key = 'vandalized';
      }
    };
    const stage = defineStage('vandal', async (ctx) => {
      vandalize(ctx.entries);
      return { decisions: [] };
    });
    const judge = async ({ entries }: { entries: readonly Entry[] }) => {
      vandalize(entries);
      return { output: { decision: 'CONTINUE' } };
    };
    // A loop over the compaction threshold runs the stage; a short one is probed.
    const runs: Array<[Entry[], BatonOptions]> = [
      [toolLoop(12), { stages: [stage] }],
      [toolLoop(3, 50), { selfCompact: { judge, minSteps: 0, probeEvery: 1, minTokens: 0 } }],
    ];
    for (const [history, options] of runs) {
      const before = vandalized;
      const snapshot = structuredClone(history);
      const prepared = await createBaton({ contextWindow: 8_000, ...options })
        .session('vandal')
        .prepare({ entries: history });
      expect(vandalized).toBe(before + 1);
      expect(history).toEqual(snapshot);
      expect(prepared.entries.every((e) => e.key !== 'vandalized' && e.parts.length > 0)).toBe(true);
    }
  });
});

describe("a store of the user's", () => {
  it("that edits what it is given to keep reaches neither the host's messages nor the ledger", async () => {
    const inner = memoryStore();
    let edits = 0;
    const vandal: Store = {
      ...inner,
      appendArchive: async (sessionId, records) => {
        for (const record of records) {
          edits++;
          record.entry.parts.length = 0;
        }
        return inner.appendArchive(sessionId, []);
      },
      putDocument: async (namespace, key, value, expected) => {
        const doc = value as { decisions?: unknown[] };
        if (Array.isArray(doc?.decisions)) {
          edits++;
          doc.decisions.length = 0;
        }
        return inner.putDocument(namespace, key, value, expected);
      },
    };
    const history = toolLoop(12);
    const snapshot = structuredClone(history);
    const session = createBaton({ contextWindow: 8_000, store: vandal }).session('vandal-store');
    const first = await session.prepare({ entries: history });
    expect(first.outcome).toBe('compacted');
    expect(edits).toBeGreaterThan(1);
    expect(history).toEqual(snapshot);
    // The ledger this process keeps still holds its decisions: the same projection next call.
    const again = await session.prepare({ entries: history });
    expect(again.entries.map((e) => e.key)).toEqual(first.entries.map((e) => e.key));
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBaton } from './baton.ts';
import { BatonConfigError, BatonInputError } from './errors.ts';
import type { BatonEvent } from './events.ts';
import type { NoteSection, NotesBackend } from './notes-backend.ts';
import type { BatonOptions } from './options.ts';
import { detectContextOverflow } from './overflow.ts';
import { defineStage } from './stage.ts';
import type { Store } from './store.ts';
import { memoryStore } from './stores/memory-store.ts';
import { sqliteStore } from './stores/sqlite-store.ts';
import type { Summarizer } from './summarizer.ts';
import { withTimeout } from './timeout.ts';
import { gptTokenizer } from './tokenizer.ts';
import { createEntry, type Entry, entryText, outputText } from './transcript.ts';

// Each case here was a failure of an adversarial run against core: a crash, a hang, or data
// silently replaced. Every test fails on the code before its fix.

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

/** A tool loop with host ids (`id-<seq>`), as an id-keeping host (LangChain, Mastra) sends it. */
function toolLoop(steps: number, resultWords = 300): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING: audit the repository', 'id-0')];
  for (let s = 0; s < steps; s++) {
    const id = `c${s}`;
    entries.push(
      createEntry(
        entries.length,
        'assistant',
        [{ type: 'tool-call', id, name: 'read_file', input: { path: `f${s}.ts` } }],
        `id-${entries.length}`,
      ),
    );
    entries.push(
      createEntry(
        entries.length,
        'tool',
        [{ type: 'tool-result', callId: id, name: 'read_file', output: words(resultWords, s) }],
        `id-${entries.length}`,
      ),
    );
  }
  entries.push(createEntry(entries.length, 'assistant', 'All files read.', `id-${entries.length}`));
  return entries;
}

/** Unhandled rejections during a test, collected instead of left to crash the process. */
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('host entries are identified by id and content', () => {
  it('an entry edited in place (same id, new text) is shown as edited, and the old text stays recallable', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
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

describe('user code that throws, hangs or returns garbage', () => {
  it('a custom stage returning malformed decisions is skipped with an event, not a TypeError', async () => {
    for (const decisions of [[null], [{ kind: 'replace', stage: 'x', keys: 'id-1', entries: [] }], 'nope']) {
      const bad = defineStage('bad', async () => ({ decisions }) as never);
      const baton = createBaton({ contextWindow: 8_000, stages: [bad] });
      const prepared = await baton.session('s').prepare({ entries: toolLoop(12) });
      const failed = prepared.events.find((e) => e.type === 'stage-failed');
      expect(failed).toMatchObject({ type: 'stage-failed', stage: 'bad' });
      expect(JSON.stringify(failed)).toMatch(/rejected/);
    }
  });

  it('a probe judge that throws synchronously answers CONTINUE and leaves no timer to reject later', async () => {
    const baton = createBaton({
      contextWindow: 8_000,
      selfCompact: {
        judge: () => {
          throw new Error('judge exploded');
        },
        minSteps: 0,
        probeEvery: 1,
        minTokens: 0,
        timeoutMs: 20,
      },
    });
    const events: BatonEvent[] = [];
    const prepared = await baton.session('s').prepare({ entries: toolLoop(3, 50) });
    events.push(...prepared.events);
    await settle(60); // past the probe's timeout
    expect(unhandled).toEqual([]);
    expect(JSON.stringify(events)).toContain('judge exploded');
  });

  it('withTimeout settles on a synchronous throw and clears its timer', async () => {
    await expect(
      withTimeout(
        () => {
          throw new Error('sync');
        },
        20,
        'the work',
      ),
    ).rejects.toThrow('sync');
    await settle(50);
    expect(unhandled).toEqual([]);
  });

  it('a notes backend that never answers fails the read with an event and the write with an error, within storeTimeoutMs', async () => {
    const never = () => new Promise<never>(() => {});
    const notes: NotesBackend = { read: never, version: never, write: never };
    const baton = createBaton({ contextWindow: 8_000, notes, storeTimeoutMs: 30 });
    const session = baton.session('s');
    const prepared = await session.prepare({ entries: toolLoop(3, 50) });
    expect(prepared.entries.length).toBeGreaterThan(0);
    expect(prepared.events).toContainEqual(
      expect.objectContaining({ type: 'store-failed', operation: 'readNotes' }),
    );
    await expect(session.notes.write('plan', 'step 1')).rejects.toThrow(/notes backend's read timed out/);
    await settle(60);
    expect(unhandled).toEqual([]);
  });

  it('a notes backend gets and gives copies: editing its sections later changes nothing Baton holds', async () => {
    let stored: NoteSection[] = [];
    let version = 0;
    const notes: NotesBackend = {
      read: async () => ({ sections: stored, version }),
      write: async (_id, sections, expected) => {
        if (expected !== version) return { ok: false, currentVersion: version };
        stored = sections;
        version++;
        return { ok: true, version };
      },
    };
    const session = createBaton({ contextWindow: 8_000, notes }).session('s');
    const written = await session.notes.write('plan', 'step 1');
    (stored[0] as NoteSection).text = 'rewritten behind Baton';
    expect(written[0]?.text).toBe('step 1');
    expect((await session.notes.read('plan'))?.text).toBe('step 1');
  });

  it('a corrupt stored ledger or state ({} or null) is ignored with an event', async () => {
    for (const corrupt of [{}, null, { decisions: [null] }, 7]) {
      const inner = memoryStore();
      const store: Store = {
        ...inner,
        getDocument: async <T>(namespace: string, key: string) => {
          const real = await inner.getDocument<T>(namespace, key);
          return { value: corrupt as T, version: (real?.version ?? 0) + 1 };
        },
      };
      const baton = createBaton({ contextWindow: 8_000, store });
      const prepared = await baton.session('s').prepare({ entries: toolLoop(12) });
      expect(prepared.entries.length).toBeGreaterThan(0);
      expect(
        prepared.events.some((e) => e.type === 'store-failed' && /corrupt|null|number/.test(e.error)),
      ).toBe(true);
    }
  });

  it('recoverFromOverflow answers when the error has a throwing message getter', async () => {
    const hostile = {
      get message(): string {
        throw new Error('getter exploded');
      },
      code: 'context_length_exceeded',
    };
    const session = createBaton({ contextWindow: 8_000 }).session('s');
    await expect(session.recoverFromOverflow(hostile)).resolves.toBe('retry');
    expect(detectContextOverflow(hostile)).toBeDefined();
  });

  it('parses a hostile 1 MB error body in linear time', () => {
    const bodies = [
      'input is too long '.repeat(60_000),
      `prompt is too long: ${'1'.repeat(1_000_000)}`,
      'maximum context length is 8192 tokens '.repeat(30_000),
      `{"error":{"message":"${'9,'.repeat(500_000)} tokens"}}`,
    ];
    const start = performance.now();
    for (const body of bodies) detectContextOverflow({ message: body, responseBody: body });
    // Quadratic parsing took 11-17 s on 109 KB; linear parsing of 4 MB takes well under this.
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(
      detectContextOverflow(new Error('prompt is too long: 210,000 tokens > 200,000 maximum')),
    ).toMatchObject({ tokens: 210_000, limit: 200_000 });
    expect(
      detectContextOverflow(
        new Error(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130500 tokens.",
        ),
      ),
    ).toMatchObject({ tokens: 130_500, limit: 128_000 });
  });

  it('a tokenizer answering NaN, a negative or a non-number is a BatonConfigError at creation', () => {
    for (const answer of [Number.NaN, -1, Number.POSITIVE_INFINITY, '12']) {
      const tokenizer = { name: 'broken', count: () => answer as number };
      expect(() => createBaton({ contextWindow: 8_000, tokenizer })).toThrow(BatonConfigError);
      expect(() => createBaton({ contextWindow: 8_000, tokenizer })).toThrow(
        /\[baton\] \[tokenizer\] broken/,
      );
    }
    // An estimate with a fraction is rounded up, not refused.
    const estimate = { name: 'chars/4', count: (text: string) => text.length / 4 };
    expect(createBaton({ contextWindow: 8_000, tokenizer: estimate }).options.tokenizer.count('abcde')).toBe(
      2,
    );
  });

  it('a tokenizer that turns bad later fails the call with a BatonConfigError, never lets history through', async () => {
    const base = gptTokenizer();
    let calls = 0;
    const flaky = { name: 'flaky', count: (text: string) => (++calls > 1 ? -5 : base.count(text)) };
    const session = createBaton({ contextWindow: 8_000, tokenizer: flaky }).session('s');
    await expect(session.prepare({ entries: toolLoop(12) })).rejects.toThrow(BatonConfigError);
  });
});

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
    const session = createBaton({ contextWindow: 8_000 }).session('hash-ids');
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

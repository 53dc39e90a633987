import type { Store } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { archiveRecord } from './archive-record.ts';
import { testsSessionIds } from './store-conformance-ids.ts';

const odd = [
  'zero\u0000byte',
  'emoji 🧭 and ZWJ 👩‍👩‍👧 family',
  'RTL \u202Eevil\u202C and combining e\u0301',
  'lone surrogate-free astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '中文 日本語 한국어',
];

/** Optional parts of the `Store` contract; a store that lacks one says so and why. */
export type StoreCapability =
  /** `documentVersion(namespace, key)`: the version without the document (lets sessions skip re-reads). */
  | 'documentVersion'
  /** The data survives a new handle on the same backing storage (a restart). */
  | 'reopen';

export interface StoreConformanceOptions {
  /** Returns an empty store: every test starts from one. */
  create: () => Store | Promise<Store>;
  /**
   * Returns a new handle on the data of `store`, as after a process restart. Required unless
   * `lacks.reopen` says why the store cannot persist.
   */
  reopen?: (store: Store) => Promise<Store>;
  /**
   * Capabilities the store does not have, each with the reason. Their tests are reported as
   * skipped under that reason; a capability that is not declared missing is tested, and fails
   * when the store does not have it.
   */
  lacks?: Partial<Record<StoreCapability, string>>;
}

/**
 * The contract every Baton store meets (memory, SQLite, Postgres, the framework bridges, and
 * yours): documents with compare-and-set, an append-only archive ordered by seq,
 * case-insensitive substring search that treats query syntax as text, session isolation, and
 * odd input kept byte-identical. Call it at the top level of a vitest test file.
 *
 * @example
 * ```ts
 * import { describeStoreConformance } from '@baton/testing';
 * import { redisStore } from './redis-store.js';
 *
 * describeStoreConformance('redis', {
 *   create: () => redisStore({ prefix: crypto.randomUUID() }),
 *   lacks: { reopen: 'the test server is in-memory' },
 * });
 * ```
 */
export function describeStoreConformance(name: string, options: StoreConformanceOptions): void {
  const { create: fresh, reopen, lacks = {} } = options;
  if (!reopen && !lacks.reopen) {
    throw new TypeError(
      `[baton] [testing] store conformance "${name}": give reopen(store), or lacks.reopen with the reason the store cannot persist`,
    );
  }
  /** A test of a capability: run it, or report it skipped with the store's reason. */
  const capability = (cap: StoreCapability, title: string, body: () => Promise<void>) => {
    const reason = lacks[cap];
    if (reason) it.skip(`${title} (lacks ${cap}: ${reason})`, body);
    else it(title, body);
  };
  describe(`store conformance: ${name}`, () => {
    it('creates, reads and updates documents with compare-and-set', async () => {
      const store = await fresh();
      expect(await store.getDocument('s1/notes', 'notes')).toBeUndefined();
      expect(await store.putDocument('s1/notes', 'notes', { a: 1 }, 0)).toEqual({ ok: true, version: 1 });
      expect(await store.getDocument('s1/notes', 'notes')).toEqual({ value: { a: 1 }, version: 1 });
      // A stale writer (expects 0, or an old version) is refused and told the current version.
      expect(await store.putDocument('s1/notes', 'notes', { a: 2 }, 0)).toEqual({
        ok: false,
        currentVersion: 1,
      });
      expect(await store.putDocument('s1/notes', 'notes', { a: 2 }, 1)).toEqual({ ok: true, version: 2 });
      expect(await store.putDocument('s1/notes', 'notes', { a: 3 }, 1)).toEqual({
        ok: false,
        currentVersion: 2,
      });
      expect(await store.putDocument('s1/notes', 'notes', { a: 3 }, 5)).toEqual({
        ok: false,
        currentVersion: 2,
      });
      expect(await store.getDocument('s1/notes', 'notes')).toEqual({ value: { a: 2 }, version: 2 });
      // Expecting a version of a document that does not exist is a conflict, not a create.
      expect(await store.putDocument('s1/notes', 'other', { b: 1 }, 3)).toEqual({
        ok: false,
        currentVersion: 0,
      });
    });

    capability('documentVersion', 'reports document versions without the document', async () => {
      const store = await fresh();
      if (!store.documentVersion) {
        throw new Error('store.documentVersion is missing: implement it, or declare lacks.documentVersion');
      }
      expect(await store.documentVersion('s/ledger', 'l')).toBe(0);
      await store.putDocument('s/ledger', 'l', { decisions: [] }, 0);
      await store.putDocument('s/ledger', 'l', { decisions: [1] }, 1);
      expect(await store.documentVersion('s/ledger', 'l')).toBe(2);
      expect(await store.documentVersion('s/ledger', 'other')).toBe(0);
      expect(await store.documentVersion('s/other', 'l')).toBe(0);
    });

    it('keeps namespaces and keys apart', async () => {
      const store = await fresh();
      await store.putDocument('a/x', 'k', 'ax', 0);
      await store.putDocument('a', 'x/k', 'a-xk', 0);
      await store.putDocument('b/x', 'k', 'bx', 0);
      expect((await store.getDocument('a/x', 'k'))?.value).toBe('ax');
      expect((await store.getDocument('a', 'x/k'))?.value).toBe('a-xk');
      expect((await store.getDocument('b/x', 'k'))?.value).toBe('bx');
    });

    it('returns copies: mutating what was read or written changes nothing stored', async () => {
      const store = await fresh();
      const value = { list: [1, 2] };
      await store.putDocument('ns', 'k', value, 0);
      value.list.push(3);
      const read = await store.getDocument<{ list: number[] }>('ns', 'k');
      read?.value.list.push(4);
      expect((await store.getDocument('ns', 'k'))?.value).toEqual({ list: [1, 2] });
      const record = archiveRecord(1, 'original');
      await store.appendArchive('s', [record]);
      (record.entry.parts[0] as { output: string }).output = 'changed';
      expect(JSON.stringify((await store.getArchive('s', 'ref-1'))?.entry)).toContain('original');
    });

    it('appends archive records once (first write wins) and orders ranges by seq, then ref', async () => {
      const store = await fresh();
      await store.appendArchive('s', [archiveRecord(5, 'five'), archiveRecord(2, 'two')]);
      await store.appendArchive('s', [archiveRecord(5, 'five again'), archiveRecord(3, 'three-b', 'b')]);
      await store.appendArchive('s', [archiveRecord(3, 'three-a', 'a'), archiveRecord(9, 'nine')]);
      await store.appendArchive('s', []);
      expect((await store.getArchive('s', 'ref-5'))?.entry.parts[0]).toMatchObject({ output: 'five' });
      expect((await store.rangeArchive('s', 0, 100)).map((r) => r.ref)).toEqual([
        'ref-2',
        'a',
        'b',
        'ref-5',
        'ref-9',
      ]);
      expect((await store.rangeArchive('s', 3, 5)).map((r) => r.ref)).toEqual(['a', 'b', 'ref-5']);
      expect(await store.rangeArchive('s', 6, 8)).toEqual([]);
      expect(await store.rangeArchive('s', 10, 1)).toEqual([]);
      expect(await store.getArchive('s', 'missing')).toBeUndefined();
    });

    it('searches case-insensitively for substrings, in seq order, up to the limit', async () => {
      const store = await fresh();
      await store.appendArchive('s', [
        archiveRecord(3, 'The DEPLOY failed: exit 1'),
        archiveRecord(1, 'deploy started'),
        archiveRecord(2, 'unrelated'),
        archiveRecord(4, 'redeployment scheduled'),
      ]);
      expect((await store.searchArchive('s', 'Deploy', 10)).map((r) => r.seq)).toEqual([1, 3, 4]);
      expect((await store.searchArchive('s', 'deploy', 2)).map((r) => r.seq)).toEqual([1, 3]);
      expect((await store.searchArchive('s', 'ex', 10)).map((r) => r.seq)).toEqual([3]);
      expect(await store.searchArchive('s', 'nothing like it', 10)).toEqual([]);
      expect(await store.searchArchive('s', '', 10)).toEqual([]);
      expect(await store.searchArchive('s', 'deploy', 0)).toEqual([]);
    });

    it('folds case as JavaScript does, whatever the script (İ, Georgian Mtavruli)', async () => {
      const store = await fresh();
      await store.appendArchive('s', [
        archiveRecord(1, 'flight to \u0130STANBUL'),
        archiveRecord(2, '\u1C93\u1C90\u1CA5\u1C90\u1CA0\u1C97\u1C95\u1C94\u1C9A\u1C9D capital'),
      ]);
      // 'İ' lowercases to 'i' + U+0307; Mtavruli capitals to Mkhedruli letters.
      expect((await store.searchArchive('s', 'i\u0307stanbul', 10)).map((r) => r.seq)).toEqual([1]);
      expect((await store.searchArchive('s', '\u0130stanbul', 10)).map((r) => r.seq)).toEqual([1]);
      expect(
        (
          await store.searchArchive('s', '\u10D3\u10D0\u10E5\u10D0\u10E0\u10D7\u10D5\u10D4\u10DA\u10DD', 10)
        ).map((r) => r.seq),
      ).toEqual([2]);
    });

    it('answers a long, repetitive query (4 KB of log lines) like a short one', async () => {
      const store = await fresh();
      const line = (i: number) => `2026-11-30T10:00:0${i % 10}Z INFO worker-3 heartbeat ok queue=0\n`;
      const log = Array.from({ length: 400 }, (_, i) => line(i)).join('');
      await store.appendArchive(
        's',
        Array.from({ length: 40 }, (_, i) => archiveRecord(i + 1, i === 17 ? `${log}MARKER` : log)),
      );
      const query = `${log.slice(0, 4_000)}`;
      expect((await store.searchArchive('s', query, 100)).length).toBe(40);
      expect((await store.searchArchive('s', `${log.slice(-4_000)}MARKER`, 10)).map((r) => r.seq)).toEqual([
        18,
      ]);
    });

    it('treats query syntax as text: quotes, AND/NEAR, parentheses, *, %, _', async () => {
      const store = await fresh();
      const texts = [
        'he said "ship it" AND left',
        'NEAR(a b) is fts syntax',
        'unbalanced (paren here',
        'glob* and 100% of rows_x',
        "it's a 'single' quote; DROP TABLE x; --",
      ];
      await store.appendArchive(
        's',
        texts.map((t, i) => archiveRecord(i + 1, t)),
      );
      const queries: Array<[string, number[]]> = [
        ['"ship it"', [1]],
        ['"', [1]],
        ['it" AND left', [1]],
        ['NEAR(a b)', [2]],
        ['(paren', [3]],
        ['(', [2, 3]],
        ['glob*', [4]],
        ['*', [4]],
        ['100%', [4]],
        ['%', [4]],
        ['s_x', [4]],
        ["'single'", [5]],
        ['DROP TABLE x; --', [5]],
        ['AND', [1, 4]],
        ['OR', []],
      ];
      for (const [query, seqs] of queries) {
        expect(
          (await store.searchArchive('s', query, 10)).map((r) => r.seq),
          query,
        ).toEqual(seqs);
      }
    });

    it('refuses search limits and ranges that are not whole numbers, the same on every backend', async () => {
      const store = await fresh();
      await store.appendArchive('s', [archiveRecord(1, 'deploy one'), archiveRecord(2, 'deploy two')]);
      for (const limit of [-1, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
        await expect(store.searchArchive('s', 'deploy', limit), String(limit)).rejects.toMatchObject({
          name: 'BatonConfigError',
        });
      }
      await expect(store.rangeArchive('s', Number.NaN, 5)).rejects.toMatchObject({
        name: 'BatonConfigError',
      });
      await expect(store.putDocument('s/notes', 'n', {}, -1)).rejects.toMatchObject({
        name: 'BatonConfigError',
      });
      expect((await store.searchArchive('s', 'deploy', 1)).map((r) => r.seq)).toEqual([1]);
    });

    testsSessionIds(fresh);

    it('keeps odd Unicode, NUL bytes and huge documents byte-identical, and finds them', async () => {
      const store = await fresh();
      const records = odd.map((text, i) => archiveRecord(i + 1, text));
      await store.appendArchive('s', records);
      for (const record of records) {
        expect(await store.getArchive('s', record.ref)).toEqual(record);
      }
      expect((await store.searchArchive('s', '👩‍👩‍👧', 10)).map((r) => r.seq)).toEqual([2]);
      expect((await store.searchArchive('s', '日本語', 10)).map((r) => r.seq)).toEqual([5]);
      expect((await store.searchArchive('s', 'o\u0000b', 10)).map((r) => r.seq)).toEqual([1]);
      expect((await store.searchArchive('s', '𝔫𝔦', 10)).map((r) => r.seq)).toEqual([4]);

      const huge = { text: 'x'.repeat(4 * 1024 * 1024), odd };
      expect((await store.putDocument('s/notes', 'big', huge, 0)).ok).toBe(true);
      expect((await store.getDocument('s/notes', 'big'))?.value).toEqual(huge);
      const hugeRecord = archiveRecord(10, `${'y'.repeat(2 * 1024 * 1024)} needle at the end`);
      await store.appendArchive('s', [hugeRecord]);
      expect(await store.getArchive('s', hugeRecord.ref)).toEqual(hugeRecord);
      expect((await store.searchArchive('s', 'needle at the end', 10)).map((r) => r.seq)).toEqual([10]);

      await store.putDocument('odd\u0000ns/🧭', 'k\u0000ey', 'v', 0);
      expect((await store.getDocument('odd\u0000ns/🧭', 'k\u0000ey'))?.value).toBe('v');
      expect(await store.getDocument('odd', 'k')).toBeUndefined();
    });

    capability('reopen', 'keeps documents, versions and the archive across a reopen', async () => {
      if (!reopen) throw new Error('reopen(store) is missing');
      {
        const store = await fresh();
        await store.putDocument('s/notes', 'notes', { body: 'durable' }, 0);
        await store.putDocument('s/notes', 'notes', { body: 'durable v2' }, 1);
        await store.appendArchive('s', [archiveRecord(1, 'archived before restart')]);
        const again = await reopen(store);
        expect(await again.getDocument('s/notes', 'notes')).toEqual({
          value: { body: 'durable v2' },
          version: 2,
        });
        expect((await again.searchArchive('s', 'BEFORE RESTART', 10)).map((r) => r.seq)).toEqual([1]);
        expect(await again.putDocument('s/notes', 'notes', {}, 1)).toEqual({ ok: false, currentVersion: 2 });
      }
    });
  });
}

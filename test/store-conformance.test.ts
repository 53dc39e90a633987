import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatonConfigError, memoryStore, type Store, sqliteStore } from '@baton/core';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreConformance } from './support/store-conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const paths = new WeakMap<Store, string>();

describeStoreConformance('memory', () => memoryStore());

describeStoreConformance(
  'sqlite (file)',
  () => {
    const path = join(dir, `store-${files++}.db`);
    const store = sqliteStore({ path });
    paths.set(store, path);
    return store;
  },
  async (store) => {
    await (store as ReturnType<typeof sqliteStore>).close();
    return sqliteStore({ path: paths.get(store) as string });
  },
);

describeStoreConformance('sqlite (:memory:)', () => sqliteStore({ path: ':memory:' }));

describe('sqliteStore options and schema', () => {
  it('rejects bad options with a BatonConfigError naming the field', () => {
    expect(() => sqliteStore({ path: '' })).toThrow(BatonConfigError);
    expect(() => sqliteStore({ path: 'x.db', busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
    expect(() => sqliteStore({ path: 'x.db', extra: 1 } as never)).toThrow(BatonConfigError);
  });

  it('migrates once and refuses a database from a newer version', async () => {
    const path = join(dir, 'schema.db');
    const first = sqliteStore({ path });
    await first.putDocument('ns', 'k', 1, 0);
    await first.close();
    const { DatabaseSync } = await import('node:sqlite');
    const raw = new DatabaseSync(path);
    expect(raw.prepare('SELECT version FROM baton_schema').all()).toEqual([{ version: 1 }]);
    expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    raw.exec('UPDATE baton_schema SET version = 99');
    raw.close();
    await expect(sqliteStore({ path }).getDocument('ns', 'k')).rejects.toThrow(/schema version 99/);
  });

  it('lets two handles on one file see each other and resolves their conflicts by version', async () => {
    const path = join(dir, 'shared.db');
    const a = sqliteStore({ path });
    const b = sqliteStore({ path });
    expect(await a.putDocument('s/ledger', 'ledger', 'from a', 0)).toEqual({ ok: true, version: 1 });
    expect(await b.putDocument('s/ledger', 'ledger', 'from b', 0)).toEqual({ ok: false, currentVersion: 1 });
    expect((await b.getDocument('s/ledger', 'ledger'))?.value).toBe('from a');
    await Promise.all([a.close(), b.close()]);
  });
});

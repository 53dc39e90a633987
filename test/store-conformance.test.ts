import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BatonConfigError, memoryStore, type Store, sqliteStore, storeNotes } from '@baton/core';
import { describeNotesBackendConformance, describeStoreConformance } from '@baton/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { skipUnless } from './support/skip-unless.ts';

/** A `node` on PATH older than 22.5 (no node:sqlite), such as the machine's own Node 20. */
function olderNode(): { path: string; version: string } | undefined {
  for (const bin of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(bin, 'node');
    if (!existsSync(path)) continue;
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
      const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
      if (major < 22 || (major === 22 && minor < 5)) return { path, version };
    } catch {}
  }
  return undefined;
}

const dir = mkdtempSync(join(tmpdir(), 'baton-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const paths = new WeakMap<Store, string>();

describeStoreConformance('memory', {
  create: () => memoryStore(),
  lacks: { reopen: 'memoryStore lives in the process' },
});

describeStoreConformance('sqlite (file)', {
  create: () => {
    const path = join(dir, `store-${files++}.db`);
    const store = sqliteStore({ path });
    paths.set(store, path);
    return store;
  },
  reopen: async (store) => {
    await (store as ReturnType<typeof sqliteStore>).close();
    return sqliteStore({ path: paths.get(store) as string });
  },
});

describeStoreConformance('sqlite (:memory:)', {
  create: () => sqliteStore({ path: ':memory:' }),
  lacks: { reopen: 'a :memory: database ends with its handle' },
});

describe('sqliteStore options and schema', () => {
  it('fails at construction on a Node without node:sqlite, saying what it needs', () => {
    const spy = vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    try {
      expect(() => sqliteStore({ path: join(dir, 'never.db') })).toThrow(BatonConfigError);
      expect(() => sqliteStore({ path: join(dir, 'never.db') })).toThrow(/needs Node >= 22\.13/);
    } finally {
      spy.mockRestore();
    }
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  });

  // The machine's own Node (20 on a fresh CI machine) running the built package, as a user
  // on an old Node would: the error comes at construction, not as store-failed events later.
  const oldNode = olderNode();
  it.skipIf(skipUnless(Boolean(oldNode), 'a Node older than 22.5 on PATH'))(
    `on a real Node without node:sqlite (${oldNode?.version ?? 'none found on PATH'})`,
    () => {
      if (!oldNode) throw new Error('unreachable: skipped above when no such Node is on PATH');
      const core = pathToFileURL(
        fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url)),
      ).href;
      const script = `const { sqliteStore } = await import(${JSON.stringify(core)});
      try { sqliteStore({ path: ${JSON.stringify(join(dir, 'old-node.db'))} }); console.log('created'); }
      catch (error) { console.log(error.name + ': ' + error.message); }`;
      const out = execFileSync(oldNode.path, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(out).toMatch(
        /^BatonConfigError: \[baton\] \[sqliteStore\] node:sqlite is not available in Node 2\d/,
      );
    },
  );

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

describeNotesBackendConformance('store notes on memory', { create: () => storeNotes(memoryStore()) });
describeNotesBackendConformance('store notes on sqlite', {
  create: () => storeNotes(sqliteStore({ path: ':memory:' })),
});

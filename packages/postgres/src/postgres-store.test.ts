import { BatonConfigError } from '@baton/core';
import type {} from '@baton/test-support/postgres-server.ts'; // its ProvidedContext
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { archiveRecord, describeStoreConformance } from '@baton/testing';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type PostgresStore, postgresStore } from './index.ts';

// The global setup (test/support/postgres-server.ts) starts a throwaway server, or uses BATON_PG_URL.
const url = inject('postgresUrl') || undefined;

const pool = url ? new pg.Pool({ connectionString: url, max: 20 }) : undefined;
afterAll(() => pool?.end());
let schemas = 0;
/** Each store in a schema of its own: a fresh database for every test. */
const schemaOf = new WeakMap<PostgresStore, string>();
const fresh = (tenant = 'default') => {
  const schema = `baton_test_${process.pid}_${schemas++}`;
  const store = postgresStore({ pool: pool as pg.Pool, schema, tenant });
  schemaOf.set(store, schema);
  return store;
};

describe.skipIf(
  skipUnless(Boolean(url), "a PostgreSQL server (BATON_PG_URL, or Debian's postgresql to start one)"),
)('postgres store', () => {
  describeStoreConformance('postgres', {
    create: () => fresh(),
    // A new store object on the same schema: what a restarted worker opens.
    reopen: async (store) =>
      postgresStore({ pool: pool as pg.Pool, schema: schemaOf.get(store as PostgresStore) as string }),
  });

  it('scopes every query to its tenant: two tenants on one schema never see each other', async () => {
    const schema = `baton_tenants_${process.pid}`;
    const acme = postgresStore({ pool: pool as pg.Pool, schema, tenant: 'acme' });
    const globex = postgresStore({ pool: pool as pg.Pool, schema, tenant: 'globex' });
    await acme.putDocument('s/notes', 'notes', 'acme secret', 0);
    await acme.appendArchive('s', [archiveRecord(1, 'acme archived secret')]);
    expect(await globex.getDocument('s/notes', 'notes')).toBeUndefined();
    expect(await globex.getArchive('s', 'ref-1')).toBeUndefined();
    expect(await globex.searchArchive('s', 'secret', 10)).toEqual([]);
    expect(await globex.rangeArchive('s', 0, 10)).toEqual([]);
    // The same ids in both tenants are two documents.
    expect(await globex.putDocument('s/notes', 'notes', 'globex', 0)).toEqual({ ok: true, version: 1 });
    expect((await acme.getDocument('s/notes', 'notes'))?.value).toBe('acme secret');
  });

  it('migrates once under concurrent starts, and refuses a schema from a newer version', async () => {
    const schema = `baton_migrate_${process.pid}`;
    const workers = Array.from({ length: 8 }, () => postgresStore({ pool: pool as pg.Pool, schema }));
    await Promise.all(workers.map((w) => w.migrate()));
    const { rows } = await (pool as pg.Pool).query(`SELECT version FROM ${schema}.schema_version`);
    expect(rows).toEqual([{ version: 1 }]);
    await (pool as pg.Pool).query(`UPDATE ${schema}.schema_version SET version = 99`);
    await expect(postgresStore({ pool: pool as pg.Pool, schema }).getDocument('a', 'b')).rejects.toThrow(
      /version 99, newer/,
    );
  });

  it('rejects bad options with a typed error', () => {
    expect(() => postgresStore({} as never)).toThrow(BatonConfigError);
    expect(() => postgresStore({ connectionString: url as string, schema: 'Robert"); DROP' })).toThrow(
      /schema/,
    );
    expect(() => postgresStore({ pool: pool as pg.Pool, connectionString: url as string })).toThrow(
      /exactly one/,
    );
  });

  it('makes and ends its own pool from a connection string', async () => {
    const own: PostgresStore = postgresStore({
      connectionString: url as string,
      schema: `baton_own_${process.pid}`,
    });
    await own.putDocument('n', 'k', { ok: true }, 0);
    expect((await own.getDocument('n', 'k'))?.value).toEqual({ ok: true });
    await own.close();
  });
});

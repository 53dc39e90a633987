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

  it('makes and ends its own pool from a connection string, once however often it is closed', async () => {
    const own: PostgresStore = postgresStore({
      connectionString: url as string,
      schema: `baton_own_${process.pid}`,
    });
    await own.putDocument('n', 'k', { ok: true }, 0);
    expect((await own.getDocument('n', 'k'))?.value).toEqual({ ok: true });
    await own.close();
    await expect(own.close()).resolves.toBeUndefined();
  });

  it('refuses a pg.Client, which cannot serve concurrent queries, saying what to pass', () => {
    expect(() => postgresStore({ pool: new pg.Client({ connectionString: url }) as never })).toThrow(
      /pool: expected a pg\.Pool .*pass new pg\.Pool\(\.\.\.\) or connectionString/,
    );
  });

  it('outlives its connections being ended under it (a server restart): the next call connects afresh', async () => {
    // Its own pool's idle connections ended by the server: without a listener for the error the
    // pool emits, the process itself would end.
    const name = `baton_restart_${process.pid}`;
    const own = postgresStore({
      connectionString: `${url}${(url as string).includes('?') ? '&' : '?'}application_name=${name}`,
      schema: `baton_restart_${process.pid}`,
    });
    await own.putDocument('n', 'k', 1, 0);
    const { rows } = await (pool as pg.Pool).query(
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1',
      [name],
    );
    expect(rows.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await own.getDocument('n', 'k'))?.value).toBe(1);
    await own.close();
  });

  it('runs as a role with privileges on its tables alone, once the schema is made', async () => {
    const schema = `baton_grants_${process.pid}`;
    const role = `baton_app_${process.pid}`;
    const admin = pool as pg.Pool;
    await postgresStore({ pool: admin, schema }).migrate();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    const asApp = new URL(url as string);
    asApp.username = role;
    asApp.password = '';
    const app = new pg.Pool({ connectionString: asApp.href });
    try {
      // No CREATE on the database: a migration that always ran CREATE SCHEMA failed every call.
      const store = postgresStore({ pool: app, schema });
      expect(await store.putDocument('s/notes', 'notes', 'plan', 0)).toEqual({ ok: true, version: 1 });
      await store.appendArchive('s', [archiveRecord(1, 'archived as the app role')]);
      expect((await store.getArchive('s', 'ref-1'))?.entry.parts).toHaveLength(1);
    } finally {
      await app.end();
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
    }
  });
});

import {
  type ArchiveRecord,
  checkedStore,
  entryText,
  type PutResult,
  type Store,
  type VersionedDocument,
} from '@baton/core';
import { parseOptions } from '@baton/core/internals';
import pg from 'pg';
import { z } from 'zod/v4';

const optionsSchema = z
  .object({
    /** A `pg.Pool` you own (the store never ends it). */
    pool: z
      .custom<pg.Pool>(
        // A Pool counts its clients; a pg.Client has `query` too but serves one query stream,
        // which the store's concurrent queries and transactions would break.
        (v) =>
          typeof v === 'object' &&
          v !== null &&
          typeof (v as pg.Pool).query === 'function' &&
          typeof (v as pg.Pool).connect === 'function' &&
          typeof (v as pg.Pool).totalCount === 'number',
        {
          error:
            'expected a pg.Pool (a pg.Client is one connection, which the store cannot share between concurrent queries): pass new pg.Pool(...) or connectionString',
        },
      )
      .optional(),
    /** Or a connection string: the store makes (and `close()` ends) its own pool. */
    connectionString: z.string().min(1).optional(),
    /** Every row is scoped to this tenant; two tenants on one database never see each other. */
    tenant: z.string().min(1).default('default'),
    /** The Postgres schema holding Baton's tables. */
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case SQL identifier')
      .default('baton'),
    /** Pool size when the store makes its own pool. */
    maxConnections: z.number().int().positive().default(10),
  })
  .strict()
  .refine((o) => (o.pool === undefined) !== (o.connectionString === undefined), {
    error: 'pass exactly one of pool or connectionString',
    path: ['pool'],
  });

export type PostgresStoreOptions = z.input<typeof optionsSchema>;

export interface PostgresStore extends Store {
  /** Creates or upgrades the tables (runs by itself before the first query). */
  migrate(): Promise<void>;
  /** Ends the pool the store made from `connectionString` (a pool you passed stays yours). */
  close(): Promise<void>;
}

/** Migrations in order; `schema_version` holds how many ran. Append only. */
function migrations(schema: string): string[] {
  return [
    `CREATE TABLE ${schema}.documents (
       tenant text NOT NULL,
       namespace text NOT NULL,
       key text NOT NULL,
       value text NOT NULL,
       version integer NOT NULL,
       PRIMARY KEY (tenant, namespace, key)
     );
     CREATE TABLE ${schema}.archive (
       tenant text NOT NULL,
       session_id text NOT NULL,
       ref text NOT NULL,
       seq integer NOT NULL,
       record text NOT NULL,
       search text NOT NULL,
       PRIMARY KEY (tenant, session_id, ref)
     );
     CREATE INDEX archive_by_seq ON ${schema}.archive (tenant, session_id, seq, ref);`,
  ];
}

/**
 * Postgres text cannot hold NUL; ids and search text are stored JSON-escaped (a one-to-one
 * mapping, so distinct ids stay distinct and substrings stay substrings).
 */
const escapeText = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '\\u0000') : text);
const id = (text: string) => JSON.stringify(text).slice(1, -1);
const likePattern = (query: string) => `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Baton's store on PostgreSQL, for many stateless workers sharing sessions. Documents are
 * compare-and-set on their version in one conditional statement, so concurrent writers never
 * lose an update (the core re-reads and retries on conflict). Every query is scoped by tenant
 * and session. Archive search is a case-insensitive substring search (the same contract as
 * every store; quotes, `%`, `_` and operators are plain text), accelerated by a `pg_trgm`
 * index when the extension can be created.
 *
 * @example
 * const store = postgresStore({ connectionString: process.env.DATABASE_URL, tenant: 'acme' });
 * const baton = createBaton({ model: 'gpt-4o', store });
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const o = parseOptions(optionsSchema, options, 'postgresStore');
  const owned = o.pool
    ? undefined
    : new pg.Pool({ connectionString: o.connectionString, max: o.maxConnections });
  // An idle client's connection ending (a server restart, an idle timeout) is emitted on the
  // pool, and an 'error' event with no listener ends the process. The next query fails with its
  // own error, which the core reports as `store-failed`; the pool then connects afresh.
  owned?.on('error', () => undefined);
  const pool = (o.pool ?? owned) as pg.Pool;
  const s = o.schema;
  const tenant = id(o.tenant);
  let ready: Promise<void> | undefined;
  let closing: Promise<void> | undefined;

  const newerSchema = (version: number, known: number) =>
    new Error(
      `[baton] postgres store: schema ${s} is at version ${version}, newer than this version of @baton/postgres understands (${known})`,
    );

  async function migrate(): Promise<void> {
    // A schema already at this version needs no lock and no CREATE: an application role with
    // privileges on the tables alone (the schema made by its owner) never needs more.
    const steps = migrations(s);
    const installed = await pool
      .query<{ version: number }>(`SELECT version FROM ${s}.schema_version`)
      .then(({ rows }) => rows[0]?.version)
      .catch(() => undefined);
    if (installed === steps.length) return;
    if (installed !== undefined && installed > steps.length) throw newerSchema(installed, steps.length);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // One migrator at a time, whichever worker starts first.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`baton-migrate:${s}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
      const row = (await client.query(`SELECT version FROM ${s}.schema_version`)).rows[0] as
        | { version: number }
        | undefined;
      const current = row?.version ?? 0;
      if (current > steps.length) throw newerSchema(current, steps.length);
      for (let v = current; v < steps.length; v++) await client.query(steps[v] as string);
      if (current === 0) {
        // Substring search on large archives: a trigram index when the extension is allowed.
        await client.query('SAVEPOINT trgm');
        try {
          await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
          await client.query(
            `CREATE INDEX archive_search_trgm ON ${s}.archive USING gin (search gin_trgm_ops)`,
          );
          await client.query('RELEASE SAVEPOINT trgm');
        } catch {
          await client.query('ROLLBACK TO SAVEPOINT trgm');
        }
      }
      if (row) await client.query(`UPDATE ${s}.schema_version SET version = $1`, [steps.length]);
      else await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [steps.length]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[]) => {
    ready ??= migrate().catch((error) => {
      ready = undefined; // a failed migration is retried by the next call
      throw error;
    });
    await ready;
    return pool.query<R>(text, values);
  };
  const records = (rows: Array<{ record: string }>) =>
    rows.map((row) => JSON.parse(row.record) as ArchiveRecord);

  return checkedStore({
    migrate: () => {
      ready ??= migrate();
      return ready;
    },

    async getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
      const { rows } = await query<{ value: string; version: number }>(
        `SELECT value, version FROM ${s}.documents WHERE tenant = $1 AND namespace = $2 AND key = $3`,
        [tenant, id(namespace), id(key)],
      );
      const row = rows[0];
      return row ? { value: JSON.parse(row.value) as T, version: row.version } : undefined;
    },

    async documentVersion(namespace: string, key: string): Promise<number> {
      const { rows } = await query<{ version: number }>(
        `SELECT version FROM ${s}.documents WHERE tenant = $1 AND namespace = $2 AND key = $3`,
        [tenant, id(namespace), id(key)],
      );
      return rows[0]?.version ?? 0;
    },

    async putDocument<T>(
      namespace: string,
      key: string,
      value: T,
      expectedVersion: number,
    ): Promise<PutResult> {
      const json = JSON.stringify(value);
      const args = [tenant, id(namespace), id(key), json];
      const written =
        expectedVersion === 0
          ? await query(
              `INSERT INTO ${s}.documents (tenant, namespace, key, value, version) VALUES ($1, $2, $3, $4, 1)
               ON CONFLICT DO NOTHING RETURNING version`,
              args,
            )
          : await query(
              `UPDATE ${s}.documents SET value = $4, version = version + 1
               WHERE tenant = $1 AND namespace = $2 AND key = $3 AND version = $5 RETURNING version`,
              [...args, expectedVersion],
            );
      if (written.rowCount === 1) return { ok: true, version: expectedVersion + 1 };
      const { rows } = await query<{ version: number }>(
        `SELECT version FROM ${s}.documents WHERE tenant = $1 AND namespace = $2 AND key = $3`,
        args.slice(0, 3),
      );
      return { ok: false, currentVersion: rows[0]?.version ?? 0 };
    },

    async appendArchive(sessionId, toAppend) {
      for (let start = 0; start < toAppend.length; start += 200) {
        const batch = toAppend.slice(start, start + 200);
        const values: unknown[] = [tenant, id(sessionId)];
        const tuples = batch.map((record) => {
          values.push(
            id(record.ref),
            record.seq,
            JSON.stringify(record),
            escapeText(entryText(record.entry).toLowerCase()),
          );
          const n = values.length;
          return `($1, $2, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
        });
        await query(
          `INSERT INTO ${s}.archive (tenant, session_id, ref, seq, record, search) VALUES ${tuples.join(', ')}
           ON CONFLICT DO NOTHING`,
          values,
        );
      }
    },

    async getArchive(sessionId, ref) {
      const { rows } = await query<{ record: string }>(
        `SELECT record FROM ${s}.archive WHERE tenant = $1 AND session_id = $2 AND ref = $3`,
        [tenant, id(sessionId), id(ref)],
      );
      return records(rows)[0];
    },

    async rangeArchive(sessionId, from, to) {
      const { rows } = await query<{ record: string }>(
        `SELECT record FROM ${s}.archive WHERE tenant = $1 AND session_id = $2 AND seq BETWEEN $3 AND $4
         ORDER BY seq, ref COLLATE "C"`,
        [tenant, id(sessionId), from, to],
      );
      return records(rows);
    },

    async searchArchive(sessionId, text, limit) {
      if (text.length === 0 || limit <= 0) return [];
      const needle = text.toLowerCase();
      const found: ArchiveRecord[] = [];
      // LIKE narrows to candidates; the substring check on the record is the contract.
      for (let offset = 0; found.length < limit; offset += limit) {
        const { rows } = await query<{ record: string }>(
          `SELECT record FROM ${s}.archive WHERE tenant = $1 AND session_id = $2 AND search LIKE $3 ESCAPE '\\'
           ORDER BY seq, ref COLLATE "C" LIMIT $4 OFFSET $5`,
          [tenant, id(sessionId), likePattern(escapeText(needle)), limit, offset],
        );
        for (const record of records(rows)) {
          if (found.length < limit && entryText(record.entry).toLowerCase().includes(needle))
            found.push(record);
        }
        if (rows.length < limit) break;
      }
      return found;
    },

    close() {
      // Once: ending a pg.Pool twice throws.
      closing ??= owned ? owned.end() : Promise.resolve();
      return closing;
    },
  });
}

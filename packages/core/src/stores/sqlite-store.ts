import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod/v4';
import type { ArchiveRecord, PutResult, Store, VersionedDocument } from '../contracts/store.ts';
import { entryText } from '../transcript/transcript.ts';
import { BatonConfigError, parseOptions } from '../util/errors.ts';
import { checkedStore } from './checked-store.ts';

const sqliteStoreOptions = z
  .object({
    /** File path, or `':memory:'` for a private in-memory database. */
    path: z.string().min(1),
    /** How long a writer waits for another process's lock before failing, in ms. */
    busyTimeoutMs: z.number().int().min(0).default(5_000),
  })
  .strict();

export type SqliteStoreOptions = z.input<typeof sqliteStoreOptions>;

/**
 * Migrations, in order; the database's `baton_schema` table holds how many have run.
 * Append only: a released migration is never edited.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE baton_documents (
     namespace TEXT NOT NULL,
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     version INTEGER NOT NULL,
     PRIMARY KEY (namespace, key)
   );
   CREATE TABLE baton_archive (
     session_id TEXT NOT NULL,
     ref TEXT NOT NULL,
     seq INTEGER NOT NULL,
     record TEXT NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (session_id, ref)
   );
   CREATE INDEX baton_archive_by_seq ON baton_archive (session_id, seq, ref);
   CREATE VIRTUAL TABLE baton_archive_fts USING fts5(
     text, content='baton_archive', content_rowid='rowid', tokenize='trigram'
   );
   CREATE TRIGGER baton_archive_indexed AFTER INSERT ON baton_archive BEGIN
     INSERT INTO baton_archive_fts(rowid, text) VALUES (new.rowid, new.text);
   END;
   CREATE TRIGGER baton_archive_unindexed AFTER DELETE ON baton_archive BEGIN
     INSERT INTO baton_archive_fts(baton_archive_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
   END;`,
];

/** The trigram index only answers queries of at least three characters. */
const TRIGRAM = 3;
/** Characters of a query the trigram index is asked for (the rest is checked on the candidates). */
const INDEXED_QUERY_CHARS = 48;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, NUL excluded below
const ASCII = /^[\u0000-\u007f]*$/;

type Sqlite = typeof import('node:sqlite');

/**
 * Loads `node:sqlite` when a store is created (synchronously, so a Node without it fails at
 * construction, not at the first write), and keeps its one-time ExperimentalWarning out of
 * the host's output (the warning is about the API's stability, which this file pins by its
 * own tests). Users of other stores never load it. Also what the CLI's SQLite session-file
 * readers open files with (through `@baton/core/internals`).
 *
 * @example const { DatabaseSync } = loadSqlite(); // throws BatonConfigError on a Node without node:sqlite
 */
export function loadSqlite(): Sqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let sqlite: Sqlite | undefined;
  try {
    // Absent before Node 20.16; answers undefined where node:sqlite does not exist or is
    // still behind --experimental-sqlite (Node 22.5 to 22.12).
    sqlite = (process.getBuiltinModule as ((id: string) => Sqlite | undefined) | undefined)?.('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!sqlite?.DatabaseSync) {
    throw new BatonConfigError(
      `[baton] [sqliteStore] node:sqlite is not available in Node ${process.versions.node}: sqliteStore needs Node >= 22.13 (or pass another store, such as memoryStore() or @baton/postgres)`,
    );
  }
  return sqlite;
}

function open(path: string, busyTimeoutMs: number, sqlite: Sqlite): DatabaseSync {
  const db = new sqlite.DatabaseSync(path, { timeout: busyTimeoutMs });
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
  db.exec('CREATE TABLE IF NOT EXISTS baton_schema (version INTEGER NOT NULL)');
  transaction(db, () => {
    const row = db.prepare('SELECT version FROM baton_schema').get() as { version: number } | undefined;
    const current = row?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `[baton] sqlite store: ${path} has schema version ${current}, newer than this version of @baton/core understands (${MIGRATIONS.length})`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v] as string);
    if (row) db.prepare('UPDATE baton_schema SET version = ?').run(MIGRATIONS.length);
    else db.prepare('INSERT INTO baton_schema (version) VALUES (?)').run(MIGRATIONS.length);
  });
  return db;
}

/** `BEGIN IMMEDIATE` takes the write lock up front, so two processes never deadlock upgrading a read lock. */
function transaction<T>(db: DatabaseSync, body: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = body();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** A user query as one FTS5 phrase: quotes, operators, parentheses and `*` are searched as text. */
function ftsPhrase(query: string): string {
  return `"${query.replaceAll('"', '""')}"`;
}

/**
 * The embedded default store: one SQLite file (WAL mode) on Node's built-in `node:sqlite`,
 * no native dependency. Documents use compare-and-set on their version; the archive is
 * append-only with a trigram FTS5 index, so `searchArchive` is a case-insensitive substring
 * search, as in every store. Several processes may share the file.
 *
 * @example
 * const baton = createBaton({ model: 'gpt-4o', store: sqliteStore({ path: './baton.db' }) });
 */
export function sqliteStore(options: SqliteStoreOptions): Store & { close(): Promise<void> } {
  const { path, busyTimeoutMs } = parseOptions(sqliteStoreOptions, options, 'sqliteStore');
  const sqlite = loadSqlite();
  let database: Promise<DatabaseSync> | undefined;
  const db = () => {
    database ??= Promise.resolve().then(() => open(path, busyTimeoutMs, sqlite));
    return database;
  };
  const records = (rows: unknown[]) =>
    rows.map((row) => JSON.parse((row as { record: string }).record) as ArchiveRecord);

  return checkedStore({
    async getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
      const row = (await db())
        .prepare('SELECT value, version FROM baton_documents WHERE namespace = ? AND key = ?')
        .get(namespace, key) as { value: string; version: number } | undefined;
      return row ? { value: JSON.parse(row.value) as T, version: row.version } : undefined;
    },

    async documentVersion(namespace: string, key: string): Promise<number> {
      const row = (await db())
        .prepare('SELECT version FROM baton_documents WHERE namespace = ? AND key = ?')
        .get(namespace, key) as { version: number } | undefined;
      return row?.version ?? 0;
    },

    async putDocument<T>(
      namespace: string,
      key: string,
      value: T,
      expectedVersion: number,
    ): Promise<PutResult> {
      const conn = await db();
      const json = JSON.stringify(value);
      return transaction(conn, (): PutResult => {
        const written =
          expectedVersion === 0
            ? conn
                .prepare(
                  'INSERT INTO baton_documents (namespace, key, value, version) VALUES (?, ?, ?, 1) ON CONFLICT DO NOTHING',
                )
                .run(namespace, key, json)
            : conn
                .prepare(
                  'UPDATE baton_documents SET value = ?, version = version + 1 WHERE namespace = ? AND key = ? AND version = ?',
                )
                .run(json, namespace, key, expectedVersion);
        if (Number(written.changes) === 1) return { ok: true, version: expectedVersion + 1 };
        const current = conn
          .prepare('SELECT version FROM baton_documents WHERE namespace = ? AND key = ?')
          .get(namespace, key) as { version: number } | undefined;
        return { ok: false, currentVersion: current?.version ?? 0 };
      });
    },

    async appendArchive(sessionId, toAppend) {
      if (toAppend.length === 0) return;
      const conn = await db();
      const insert = conn.prepare(
        'INSERT INTO baton_archive (session_id, ref, seq, record, text) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      );
      transaction(conn, () => {
        for (const record of toAppend) {
          // The index column drops NUL (SQLite text stops there); the record keeps it.
          const text = entryText(record.entry).replaceAll('\u0000', ' ');
          insert.run(sessionId, record.ref, record.seq, JSON.stringify(record), text);
        }
      });
    },

    async getArchive(sessionId, ref) {
      const row = (await db())
        .prepare('SELECT record FROM baton_archive WHERE session_id = ? AND ref = ?')
        .get(sessionId, ref);
      return row ? records([row])[0] : undefined;
    },

    async rangeArchive(sessionId, from, to) {
      return records(
        (await db())
          .prepare(
            'SELECT record FROM baton_archive WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq, ref',
          )
          .all(sessionId, from, to),
      );
    },

    async searchArchive(sessionId, query, limit) {
      if (query.length === 0 || limit <= 0) return [];
      const conn = await db();
      const needle = query.toLowerCase();
      // The index narrows the candidates; the substring check in JS is the contract
      // (and the whole search for queries too short for trigrams).
      // Only ASCII queries use the index: its case folding is not JavaScript's (İ, Georgian
      // Mtavruli), and a candidate it misses is a wrong answer. Of a long query only the head
      // narrows the candidates: a phrase of thousands of repetitive trigrams ran for seconds
      // with the event loop blocked, and the substring check below sees the whole query anyway.
      const chars = [...query];
      const candidates =
        chars.length >= TRIGRAM && ASCII.test(query) && !query.includes('\u0000')
          ? conn
              .prepare(
                `SELECT a.record FROM baton_archive_fts f JOIN baton_archive a ON a.rowid = f.rowid
                 WHERE baton_archive_fts MATCH ? AND a.session_id = ? ORDER BY a.seq, a.ref`,
              )
              .iterate(ftsPhrase(chars.slice(0, INDEXED_QUERY_CHARS).join('')), sessionId)
          : conn
              .prepare('SELECT record FROM baton_archive WHERE session_id = ? ORDER BY seq, ref')
              .iterate(sessionId);
      const found: ArchiveRecord[] = [];
      for (const row of candidates) {
        const [record] = records([row]);
        if (record && entryText(record.entry).toLowerCase().includes(needle)) found.push(record);
        if (found.length >= limit) break;
      }
      return found;
    },

    async close() {
      if (!database) return;
      const conn = await database;
      database = undefined;
      conn.close();
    },
  });
}

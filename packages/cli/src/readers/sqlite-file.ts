import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { BatonConfigError } from '@baton/core';
import { loadSqlite } from '@baton/core/internals';
import { type SessionFile, TranscriptFormatError } from './session-file.ts';

/*
 * A session file that is a SQLite database (LangGraph's SqliteSaver, Mastra's LibSQLStore), read
 * with `node:sqlite`: opened read-only, leaving nothing on disk, and checked for the table a
 * reader needs before it claims the file.
 */

/** `node:sqlite` through core's loader (no ExperimentalWarning); a Node without it is a format error here, not a config error. */
function sqlite(): typeof import('node:sqlite') {
  try {
    return loadSqlite();
  } catch (error) {
    if (!(error instanceof BatonConfigError)) throw error;
    throw new TranscriptFormatError(
      `reading a SQLite session file needs node:sqlite (Node >= 22.13), not Node ${process.versions.node}`,
    );
  }
}

/**
 * Runs `use` on a session file's SQLite database, opened read-only and closed after. A WAL-mode
 * file with no write-ahead log beside it is opened `immutable`, so reading leaves nothing on disk;
 * with one (the app is running, or did not close its database) the log is read too.
 *
 * @example withSqlite(file, (db) => db.prepare('SELECT COUNT(*) AS n FROM checkpoints').get())
 */
export function withSqlite<T>(file: SessionFile, use: (db: DatabaseSync) => T): T {
  const wal = `${file.path}-wal`;
  const live = existsSync(wal) && statSync(wal).size > 0;
  // Immutable only for a WAL-mode database with no log (header bytes 18-19 are 2): a database
  // in rollback-journal mode may be written by a running app, and immutable would read it torn.
  const walMode = file.bytes[18] === 2 && file.bytes[19] === 2;
  const location = live || !walMode ? file.path : `${pathToFileURL(resolve(file.path)).href}?immutable=1`;
  const db = new (sqlite().DatabaseSync)(location, { readOnly: true });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** Every table of a database with its column names. */
export function sqliteTables(db: DatabaseSync): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  const names = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all();
  for (const { name } of names as Array<{ name: string }>) {
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as Array<{ name: string }>;
    tables.set(name, new Set(columns.map((c) => c.name)));
  }
  return tables;
}

/**
 * Why a SQLite file is not the one a reader wants: the table it lacks, and what the file holds
 * instead; undefined when the table is there with every column named.
 *
 * @example missingTable(file, 'mastra_messages', ['id', 'thread_id']) // 'a SQLite file without a mastra_messages table (tables: checkpoints, writes)'
 */
export function missingTable(
  file: SessionFile,
  table: string,
  columns: readonly string[],
): string | undefined {
  let tables: Map<string, Set<string>>;
  try {
    tables = withSqlite(file, sqliteTables);
  } catch (error) {
    return `a SQLite file that cannot be opened (${(error as Error).message})`;
  }
  const found = tables.get(table);
  if (!found) {
    const names = [...tables.keys()];
    const listed = names.length > 6 ? `${names.slice(0, 6).join(', ')}, ...` : names.join(', ');
    return `a SQLite file without a ${table} table (${names.length > 0 ? `tables: ${listed}` : 'no tables'})`;
  }
  const absent = columns.filter((c) => !found.has(c));
  return absent.length > 0 ? `its ${table} table has no ${absent.join(', ')} column` : undefined;
}

/** The table names of a SQLite file on disk, read-only (the CLI checks a `--store` path with it). */
export function sqliteTableNames(path: string): string[] {
  const db = new (sqlite().DatabaseSync)(path, { readOnly: true });
  try {
    return (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>
    ).map((row) => row.name);
  } finally {
    db.close();
  }
}

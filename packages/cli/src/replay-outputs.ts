import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Store, sqliteStore } from '@baton/core';
import { codeOf, InputError, UsageError } from './cli-input.ts';
import { sqliteTableNames } from './readers/sqlite-file.ts';
import { REPLAY_SESSION } from './replay.ts';

// Where a replay writes (--report, --store): checked before the replay runs, not after it.

/** Refuses an output path that cannot be written before the replay runs, not after it. */
export function checkWritable(flag: string, path: string): void {
  const target = resolve(path);
  try {
    if (statSync(target).isDirectory()) throw new InputError(`${flag}: ${path} is a directory`);
    accessSync(target, constants.W_OK);
    return;
  } catch (error) {
    if (error instanceof InputError) throw error;
    if (codeOf(error) !== 'ENOENT')
      throw new InputError(`${flag}: cannot write ${path} (${String(codeOf(error))})`);
  }
  try {
    if (!statSync(dirname(target)).isDirectory())
      throw new InputError(`${flag}: ${dirname(path)} is not a directory`);
    accessSync(dirname(target), constants.W_OK);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(
      `${flag}: cannot write ${path}: ${codeOf(error) === 'ENOENT' ? 'no such directory' : 'permission denied'}`,
    );
  }
}

/**
 * Refuses a `--store` path that is the transcript itself, or a SQLite database of someone
 * else's (an app's Mastra or LangGraph file): Baton would switch it to WAL mode and add its
 * tables to it. A new file, or one Baton made, is fine.
 */
export function checkStorePath(path: string, transcript: string): void {
  if (resolve(path) === resolve(transcript))
    throw new InputError('--store: that is the transcript itself; give a new file');
  let tables: string[];
  try {
    if (!statSync(path).isFile() || statSync(path).size === 0) return;
    tables = sqliteTableNames(path);
  } catch {
    return; // missing, or not a database: checkWritable and checkStore say so
  }
  const foreign = tables.filter((name) => !name.startsWith('baton_') && !name.startsWith('sqlite_'));
  if (foreign.length > 0)
    throw new InputError(
      `--store: ${path} is another application's database (tables ${foreign.slice(0, 4).join(', ')}); give a new file`,
    );
}

/**
 * Opens the store before the replay and refuses one it cannot use: a file that is not a SQLite
 * database (found only at the end otherwise, as a stack trace), or one that holds a replay
 * already (a second replay into it would resume the first and show other numbers).
 */
export async function checkStore(store: Store, raw: string): Promise<void> {
  const path = raw.slice('sqlite:'.length);
  let held: boolean;
  try {
    held =
      (await store.getDocument('baton/state', REPLAY_SESSION)) !== undefined ||
      (await store.getDocument('baton/ledger', REPLAY_SESSION)) !== undefined;
  } catch (error) {
    await (store as { close?: () => Promise<void> }).close?.().catch(() => {});
    throw new InputError(`--store: cannot use ${path} as a SQLite store (${(error as Error).message})`);
  }
  if (held) {
    await (store as { close?: () => Promise<void> }).close?.();
    throw new InputError(
      `--store: ${path} holds a replay already; give a new file (a second replay into it would resume the first)`,
    );
  }
}

export function parseStore(raw: string | undefined): Store | undefined {
  if (raw === undefined || raw === 'memory') return undefined;
  if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) {
    const path = raw.slice('sqlite:'.length);
    checkWritable('--store', path);
    return sqliteStore({ path });
  }
  throw new UsageError(`--store: expected memory or sqlite:<path>, got ${JSON.stringify(raw)}`);
}

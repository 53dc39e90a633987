import {
  type ArchiveRecord,
  BatonConfigError,
  checkedStore,
  compareArchiveRecords,
  entryText,
  type PutResult,
  type Store,
  type VersionedDocument,
} from '@baton/core';
import { cloneJson as copy } from '@baton/core/internals';
import type { MastraMemory } from '@mastra/core/memory';

/** What Baton uses of Mastra's thread-state storage domain (`@mastra/core` 1.6x and later). */
interface ThreadState {
  getState<T>(args: { threadId: string; type: string }): Promise<T | undefined>;
  setState<T>(args: { threadId: string; type: string; value: T }): Promise<void>;
}

interface StoredDocument {
  value: unknown;
  version: number;
}

const ARCHIVE = 'baton:archive';

function noThreadState(): BatonConfigError {
  return new BatonConfigError(
    "[baton] [mastra] the Memory's storage has no thread-state domain (it needs a recent @mastra/core and a storage that implements it, such as LibSQLStore or PostgresStore): pass store (sqliteStore, postgresStore) to keep Baton's data elsewhere",
    ['store'],
  );
}

/**
 * Baton's Store in the storage of the agent's Mastra `Memory` (its thread-state domain:
 * LibSQL, Postgres, …), so a Mastra app needs no second database: documents (ledger, state,
 * notes, checkpoints) as `baton:<namespace>` values of the session's thread, the archive as
 * one `baton:archive` value per thread. The domain has no compare-and-set, so writes to one
 * document or archive are serialised in this process and the version is checked before
 * writing: safe with one process per thread (for many workers sharing threads, use
 * `postgresStore`). Throws `BatonConfigError` when the Memory's storage has no thread-state
 * domain.
 */
export function mastraMemoryStore(memory: MastraMemory): Store {
  // A storage that lists its domains and lacks this one is refused now, not at the first write.
  // (A Memory without storage yet gets the Mastra instance's when the agent registers.)
  let domains: { threadState?: unknown } | undefined;
  try {
    domains = memory.storage?.stores as { threadState?: unknown } | undefined;
  } catch {
    domains = undefined;
  }
  if (domains && !domains.threadState) throw noThreadState();
  let domain: Promise<ThreadState> | undefined;
  const threadState = () => {
    domain ??= memory.storage.getStore('threadState').then((found) => {
      if (!found) throw noThreadState();
      return found as unknown as ThreadState;
    });
    return domain;
  };
  // One queue per value: a read-check-write never interleaves with another on the same value.
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(slot: string, work: () => Promise<T>): Promise<T> => {
    const run = (queues.get(slot) ?? Promise.resolve()).then(work, work);
    const settled = run.catch(() => undefined);
    queues.set(slot, settled);
    void settled.then(() => {
      if (queues.get(slot) === settled) queues.delete(slot);
    });
    return run;
  };
  const docType = (namespace: string) => `baton:${namespace}`;
  const archive = async (sessionId: string): Promise<ArchiveRecord[]> =>
    (
      await (
        await threadState()
      ).getState<{ records: ArchiveRecord[] }>({ threadId: sessionId, type: ARCHIVE })
    )?.records ?? [];

  return checkedStore({
    async getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
      const stored = await (await threadState()).getState<StoredDocument>({
        threadId: key,
        type: docType(namespace),
      });
      return stored ? { value: copy(stored.value as T), version: stored.version } : undefined;
    },
    putDocument<T>(namespace: string, key: string, value: T, expectedVersion: number): Promise<PutResult> {
      return serial(`${namespace}\u0000${key}`, async () => {
        const state = await threadState();
        const current = await state.getState<StoredDocument>({ threadId: key, type: docType(namespace) });
        const currentVersion = current?.version ?? 0;
        if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
        const version = currentVersion + 1;
        await state.setState<StoredDocument>({
          threadId: key,
          type: docType(namespace),
          value: { value: copy(value), version },
        });
        return { ok: true, version };
      });
    },
    appendArchive(sessionId, records) {
      return serial(`${ARCHIVE}\u0000${sessionId}`, async () => {
        const stored = await archive(sessionId);
        const known = new Set(stored.map((record) => record.ref));
        const fresh = records.filter((record) => !known.has(record.ref) && known.add(record.ref));
        if (fresh.length === 0) return;
        await (await threadState()).setState({
          threadId: sessionId,
          type: ARCHIVE,
          value: { records: [...stored, ...fresh.map((record) => copy(record))] },
        });
      });
    },
    async getArchive(sessionId, ref) {
      const found = (await archive(sessionId)).find((record) => record.ref === ref);
      return found ? copy(found) : undefined;
    },
    async rangeArchive(sessionId, from, to) {
      return (await archive(sessionId))
        .filter((record) => record.seq >= from && record.seq <= to)
        .sort(compareArchiveRecords)
        .map((record) => copy(record));
    },
    async searchArchive(sessionId, query, limit) {
      const needle = query.toLowerCase();
      if (needle.length === 0 || limit <= 0) return [];
      return (await archive(sessionId))
        .filter((record) => entryText(record.entry).toLowerCase().includes(needle))
        .sort(compareArchiveRecords)
        .slice(0, limit)
        .map((record) => copy(record));
    },
  });
}

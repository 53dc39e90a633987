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
import { fromJsonBackend, LruCache, storeLabel, toJsonBackend } from '@baton/core/internals';
import type { MastraMemory } from '@mastra/core/memory';

/** What Baton uses of Mastra's thread-state storage domain (`@mastra/core` 1.6x and later). */
interface ThreadState {
  getState<T>(args: { threadId: string; type: string }): Promise<T | undefined>;
  setState<T>(args: { threadId: string; type: string; value: T }): Promise<void>;
}

/** A document as kept: the value itself, or its JSON text when it holds NUL (see `toJsonBackend`). */
interface StoredDocument {
  value?: unknown;
  json?: string | undefined;
  version: number;
}

/** A session's archive as kept: the records, or their JSON text when one holds NUL. */
interface StoredArchive {
  records?: ArchiveRecord[];
  json?: string | undefined;
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
  // Ids are written with storeLabel, which every backend holds (NUL included) and which leaves
  // Mastra's own thread ids (UUIDs) as they are; releases before it wrote them raw, and that
  // data is still read (`legacy`), moving to the new form as it is written again.
  const thread = (id: string) => ({
    current: storeLabel(id),
    legacy: id.includes('\u0000') ? undefined : id,
  });
  const docType = (namespace: string) => `baton:${namespace.split('/').map(storeLabel).join('/')}`;
  const legacyDocType = (namespace: string) => `baton:${namespace}`;
  // Documents the earlier layout was found not to hold: sessions read theirs before every
  // model call, and one never written (no notes yet) would otherwise cost a second read each time.
  const noLegacy = new LruCache<string, true>(10_000);
  const readDocument = async (namespace: string, key: string): Promise<StoredDocument | undefined> => {
    const state = await threadState();
    const { current, legacy } = thread(key);
    const found = await state.getState<StoredDocument>({ threadId: current, type: docType(namespace) });
    if (found || legacy === undefined || namespace.includes('\u0000')) return found;
    if (legacy === current && legacyDocType(namespace) === docType(namespace)) return undefined;
    const slot = `${namespace}\u0000${key}`;
    if (noLegacy.has(slot)) return undefined;
    const old = await state.getState<StoredDocument>({ threadId: legacy, type: legacyDocType(namespace) });
    if (!old) noLegacy.set(slot, true);
    return old;
  };
  const records = (stored: StoredArchive | undefined): ArchiveRecord[] =>
    fromJsonBackend<ArchiveRecord[]>({ value: stored?.records, json: stored?.json }) ?? [];
  /** The session's archive as written now, and as an earlier release wrote it (first wins). */
  const archive = async (sessionId: string): Promise<{ current: ArchiveRecord[]; all: ArchiveRecord[] }> => {
    const state = await threadState();
    const { current: id, legacy } = thread(sessionId);
    const current = records(await state.getState<StoredArchive>({ threadId: id, type: ARCHIVE }));
    if (legacy === undefined || legacy === id) return { current, all: current };
    const old = records(await state.getState<StoredArchive>({ threadId: legacy, type: ARCHIVE }));
    const refs = new Set(old.map((record) => record.ref));
    return { current, all: [...old, ...current.filter((record) => !refs.has(record.ref))] };
  };

  return checkedStore({
    async getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
      const stored = await readDocument(namespace, key);
      return stored ? { value: fromJsonBackend<T>(stored) as T, version: stored.version } : undefined;
    },
    putDocument<T>(namespace: string, key: string, value: T, expectedVersion: number): Promise<PutResult> {
      return serial(`${namespace}\u0000${key}`, async () => {
        const currentVersion = (await readDocument(namespace, key))?.version ?? 0;
        if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
        const version = currentVersion + 1;
        await (await threadState()).setState<StoredDocument>({
          threadId: storeLabel(key),
          type: docType(namespace),
          value: { ...toJsonBackend(value), version },
        });
        return { ok: true, version };
      });
    },
    appendArchive(sessionId, added) {
      return serial(`${ARCHIVE}\u0000${sessionId}`, async () => {
        const { current, all } = await archive(sessionId);
        const known = new Set(all.map((record) => record.ref));
        const fresh = added.filter((record) => !known.has(record.ref) && known.add(record.ref));
        if (fresh.length === 0) return;
        const form = toJsonBackend([...current, ...fresh]);
        await (await threadState()).setState<StoredArchive>({
          threadId: storeLabel(sessionId),
          type: ARCHIVE,
          value: form.json === undefined ? { records: form.value } : { json: form.json },
        });
      });
    },
    async getArchive(sessionId, ref) {
      return (await archive(sessionId)).all.find((record) => record.ref === ref);
    },
    async rangeArchive(sessionId, from, to) {
      return (await archive(sessionId)).all
        .filter((record) => record.seq >= from && record.seq <= to)
        .sort(compareArchiveRecords);
    },
    async searchArchive(sessionId, query, limit) {
      const needle = query.toLowerCase();
      if (needle.length === 0 || limit <= 0) return [];
      return (await archive(sessionId)).all
        .filter((record) => entryText(record.entry).toLowerCase().includes(needle))
        .sort(compareArchiveRecords)
        .slice(0, limit);
    },
  });
}

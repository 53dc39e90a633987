import {
  type ArchiveRecord,
  cloneJson,
  compareArchiveRecords,
  type PutResult,
  type Store,
  type VersionedDocument,
} from '../contracts/store.ts';
import { entryText } from '../transcript/transcript.ts';
import { checkedStore } from './checked-store.ts';

interface IndexedRecord {
  record: ArchiveRecord;
}

/**
 * In-process store: documents and archive in Maps. Values are copied on the way in and out,
 * so it behaves like a persistent backend (no shared mutable state with callers).
 *
 * @example
 * const baton = createBaton({ model: 'gpt-4o', store: memoryStore() });
 */
export function memoryStore(): Store {
  const documents = new Map<string, { value: string; version: number }>();
  const archives = new Map<string, Map<string, IndexedRecord>>();

  const archiveOf = (sessionId: string) => {
    let archive = archives.get(sessionId);
    if (!archive) {
      archive = new Map();
      archives.set(sessionId, archive);
    }
    return archive;
  };
  const bySeq = (a: IndexedRecord, b: IndexedRecord) => compareArchiveRecords(a.record, b.record);

  return checkedStore({
    async getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
      const stored = documents.get(`${namespace}\u0000${key}`);
      return stored ? { value: JSON.parse(stored.value) as T, version: stored.version } : undefined;
    },
    async documentVersion(namespace: string, key: string): Promise<number> {
      return documents.get(`${namespace}\u0000${key}`)?.version ?? 0;
    },
    async putDocument<T>(
      namespace: string,
      key: string,
      value: T,
      expectedVersion: number,
    ): Promise<PutResult> {
      const id = `${namespace}\u0000${key}`;
      const currentVersion = documents.get(id)?.version ?? 0;
      if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
      documents.set(id, { value: JSON.stringify(value), version: currentVersion + 1 });
      return { ok: true, version: currentVersion + 1 };
    },
    async appendArchive(sessionId, records) {
      const archive = archiveOf(sessionId);
      for (const record of records) {
        if (archive.has(record.ref)) continue;
        const copy = cloneJson(record);
        // No lower-cased copy kept for search: it doubled the archive's memory, which grows with
        // every evicted entry of a long session; a search renders the texts it scans instead.
        archive.set(record.ref, { record: copy });
      }
    },
    async getArchive(sessionId, ref) {
      const found = archives.get(sessionId)?.get(ref);
      return found ? cloneJson(found.record) : undefined;
    },
    async rangeArchive(sessionId, from, to) {
      const archive = archives.get(sessionId);
      if (!archive) return [];
      return [...archive.values()]
        .filter((r) => r.record.seq >= from && r.record.seq <= to)
        .sort(bySeq)
        .map((r) => cloneJson(r.record));
    },
    async searchArchive(sessionId, query, limit) {
      const archive = archives.get(sessionId);
      const needle = query.toLowerCase();
      if (!archive || needle.length === 0) return [];
      return [...archive.values()]
        .filter((r) => entryText(r.record.entry).toLowerCase().includes(needle))
        .sort(bySeq)
        .slice(0, limit)
        .map((r) => cloneJson(r.record));
    },
  });
}

import type { ArchiveRecord, PutResult, Store, VersionedDocument } from '@baton/core';
import { checkedStore, compareArchiveRecords, entryText } from '@baton/core';
import { cloneJson as copy } from '@baton/core/internals';
import type { BaseStore } from '@langchain/langgraph';

/**
 * A namespace label LangGraph accepts (no periods, NUL bytes or empty labels), one-to-one:
 * thread ids made of letters, digits, `-` and `_` stay readable as they are.
 */
function label(text: string): string {
  return text.length === 0 ? '%' : encodeURIComponent(text).replaceAll('.', '%2E');
}

/**
 * Baton's Store over the LangGraph `BaseStore` the graph runs with (`InMemoryStore`,
 * Postgres, …): documents under `[prefix, 'doc', namespace]`, each session's archive under
 * `[prefix, 'archive', sessionId]`. `BaseStore` has no compare-and-set, so the version check
 * is a read before the write: safe for one worker per thread, which is how LangGraph runs a thread.
 */
export function langGraphStore(store: BaseStore, prefix = 'baton'): Store {
  const docNs = (namespace: string) => [prefix, 'doc', ...namespace.split('/').map(label)];
  const archiveNs = (sessionId: string) => [prefix, 'archive', label(sessionId)];
  const all = async (sessionId: string) => {
    const records: ArchiveRecord[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await store.search(archiveNs(sessionId), { limit: 500, offset });
      records.push(...page.map((item) => copy(item.value as ArchiveRecord)));
      if (page.length < 500) break;
    }
    return records.sort(compareArchiveRecords);
  };
  return checkedStore({
    async getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
      const item = await store.get(docNs(namespace), key);
      return item ? { value: copy(item.value.value as T), version: item.value.version as number } : undefined;
    },
    async putDocument<T>(
      namespace: string,
      key: string,
      value: T,
      expectedVersion: number,
    ): Promise<PutResult> {
      const current = await store.get(docNs(namespace), key);
      const currentVersion = (current?.value.version as number | undefined) ?? 0;
      if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
      await store.put(docNs(namespace), key, { value: copy(value), version: currentVersion + 1 }, false);
      return { ok: true, version: currentVersion + 1 };
    },
    async appendArchive(sessionId, records) {
      for (const record of records) {
        if (await store.get(archiveNs(sessionId), record.ref)) continue;
        await store.put(archiveNs(sessionId), record.ref, copy(record), false);
      }
    },
    async getArchive(sessionId, ref) {
      const item = await store.get(archiveNs(sessionId), ref);
      return item ? copy(item.value as ArchiveRecord) : undefined;
    },
    async rangeArchive(sessionId, from, to) {
      return (await all(sessionId)).filter((r) => r.seq >= from && r.seq <= to);
    },
    async searchArchive(sessionId, query, limit) {
      const needle = query.toLowerCase();
      if (needle.length === 0 || limit <= 0) return [];
      return (await all(sessionId))
        .filter((r) => entryText(r.entry).toLowerCase().includes(needle))
        .slice(0, limit);
    },
  });
}

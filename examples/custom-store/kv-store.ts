import {
  type ArchiveRecord,
  checkedStore,
  compareArchiveRecords,
  entryText,
  type PutResult,
  type Store,
} from '@baton/core';

/**
 * The two primitives a key-value service needs for Baton: a read, and an atomic
 * compare-and-set (Redis: WATCH/MULTI or a Lua script; DynamoDB: a conditional put; etcd: a
 * transaction on mod_revision). `expected: undefined` means "only if the key is absent".
 */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  compareAndSet(key: string, expected: string | undefined, next: string): Promise<boolean>;
}

/** An in-process KeyValue (for tests and this example); a real one talks to the service. */
export function mapKeyValue(map = new Map<string, string>()): KeyValue {
  return {
    async get(key) {
      return map.get(key);
    },
    async compareAndSet(key, expected, next) {
      if (map.get(key) !== expected) return false;
      map.set(key, next);
      return true;
    },
  };
}

/**
 * A Baton `Store` over a KeyValue. Documents are `{ version, value }` JSON under one key
 * each; the archive is one key per record plus a per-session index of refs, both written
 * with compare-and-set, so concurrent workers never lose an append.
 */
export function kvStore(kv: KeyValue): Store {
  // NUL cannot appear in a key prefix the caller controls, so namespaces and keys never collide.
  const documentKey = (namespace: string, key: string) => `doc\u0000${namespace}\u0000${key}`;
  const recordKey = (sessionId: string, ref: string) => `arc\u0000${sessionId}\u0000${ref}`;
  const indexKey = (sessionId: string) => `idx\u0000${sessionId}`;

  const records = async (sessionId: string): Promise<ArchiveRecord[]> => {
    const refs = JSON.parse((await kv.get(indexKey(sessionId))) ?? '[]') as string[];
    const raw = await Promise.all(refs.map((ref) => kv.get(recordKey(sessionId, ref))));
    return raw
      .flatMap((text) => (text ? [JSON.parse(text) as ArchiveRecord] : []))
      .sort(compareArchiveRecords);
  };

  return checkedStore({
    async getDocument<T>(namespace: string, key: string) {
      const text = await kv.get(documentKey(namespace, key));
      return text ? (JSON.parse(text) as { value: T; version: number }) : undefined;
    },
    async putDocument<T>(
      namespace: string,
      key: string,
      value: T,
      expectedVersion: number,
    ): Promise<PutResult> {
      const id = documentKey(namespace, key);
      const current = await kv.get(id);
      const currentVersion = current ? (JSON.parse(current) as { version: number }).version : 0;
      if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
      const next = JSON.stringify({ value, version: currentVersion + 1 });
      if (await kv.compareAndSet(id, current, next)) return { ok: true, version: currentVersion + 1 };
      // Another writer got in between the read and the write: report its version.
      const winner = await kv.get(id);
      return { ok: false, currentVersion: winner ? (JSON.parse(winner) as { version: number }).version : 0 };
    },
    async appendArchive(sessionId, toAppend) {
      for (const record of toAppend) {
        // The first write of a ref wins: a record that exists already is left as it is.
        await kv.compareAndSet(recordKey(sessionId, record.ref), undefined, JSON.stringify(record));
        for (;;) {
          const index = await kv.get(indexKey(sessionId));
          const refs = JSON.parse(index ?? '[]') as string[];
          if (refs.includes(record.ref)) break;
          if (await kv.compareAndSet(indexKey(sessionId), index, JSON.stringify([...refs, record.ref])))
            break;
        }
      }
    },
    async getArchive(sessionId, ref) {
      const text = await kv.get(recordKey(sessionId, ref));
      return text ? (JSON.parse(text) as ArchiveRecord) : undefined;
    },
    async rangeArchive(sessionId, from, to) {
      return (await records(sessionId)).filter((r) => r.seq >= from && r.seq <= to);
    },
    async searchArchive(sessionId, query, limit) {
      const needle = query.toLowerCase();
      if (needle.length === 0 || limit <= 0) return [];
      return (await records(sessionId))
        .filter((r) => entryText(r.entry).toLowerCase().includes(needle))
        .slice(0, limit);
    },
  });
}

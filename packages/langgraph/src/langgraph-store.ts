import type { ArchiveRecord, PutResult, Store, VersionedDocument } from '@baton/core';
import { checkedStore, compareArchiveRecords, entryText } from '@baton/core';
import { fromJsonBackend, LruCache, storeLabel, toJsonBackend } from '@baton/core/internals';
import type { BaseStore, Item } from '@langchain/langgraph';

/** Where one layout of Baton's data sits in a `BaseStore`: namespaces and keys. */
interface Layout {
  doc(namespace: string): string[];
  archive(sessionId: string): string[];
  key(key: string): string;
}

/** Items per page when listing a session's archive. */
const PAGE = 500;
/** Documents remembered as absent from the earlier layout (a bound, not a working set). */
const LEGACY_MISSES = 10_000;

/**
 * Baton's Store over the LangGraph `BaseStore` the graph runs with (`InMemoryStore`,
 * `PostgresStore`, …): documents under `[prefix, 'doc', ...namespace]`, each session's archive
 * under `[prefix, 'archive', sessionId]`, every label and key written with `storeLabel` (letters,
 * digits, `-` and `~` escapes: what `PostgresStore` accepts). A session reads only items whose
 * namespace is exactly its own: `PostgresStore` searches namespaces as a LIKE prefix, so
 * `chat-1` would otherwise read `chat-12`'s records. A value holding NUL (which `jsonb`
 * refuses) is kept as its JSON text. Data written by releases before this layout (labels
 * percent-encoded, keys as they were) is still read, and moves to the new layout as it is
 * written again. `BaseStore` has no compare-and-set, so the version check is a read before the
 * write: safe for one worker per thread, which is how LangGraph runs a thread.
 */
export function langGraphStore(store: BaseStore, prefix = 'baton'): Store {
  const current = layout(storeLabel, storeLabel, storeLabel(prefix));
  const legacy = layout(legacyLabel, (key) => key, prefix);
  const legacyDoc = (namespace: string, key: string) =>
    differs(current.doc(namespace), legacy.doc(namespace)) || current.key(key) !== legacy.key(key);

  // Documents the earlier layout was found not to hold: sessions read theirs before every
  // model call, and one never written (no notes yet) would otherwise cost a second read each time.
  const noLegacy = new LruCache<string, true>(LEGACY_MISSES);
  const readLegacyDocument = async (namespace: string, key: string): Promise<Item | null> => {
    const slot = `${namespace}\u0000${key}`;
    if (!legacyDoc(namespace, key) || noLegacy.has(slot)) return null;
    const item = await unlessRefused(
      () => store.get(legacy.doc(namespace), legacy.key(key)),
      null,
      namespace,
      key,
    );
    if (!item) noLegacy.set(slot, true);
    return item;
  };

  const readDocument = async <T>(
    namespace: string,
    key: string,
  ): Promise<VersionedDocument<T> | undefined> => {
    const item =
      (await store.get(current.doc(namespace), current.key(key))) ??
      (await readLegacyDocument(namespace, key));
    if (!item) return undefined;
    return { value: fromJsonBackend<T>(item.value) as T, version: item.value.version as number };
  };

  /** Every item in exactly `namespace` (a backend's search may match it as a prefix). */
  const list = async (namespace: string[]): Promise<Item[]> => {
    const items: Item[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await store.search(namespace, { limit: PAGE, offset });
      items.push(...page.filter((item) => !differs(item.namespace, namespace)));
      if (page.length < PAGE) return items;
    }
  };

  const archive = async (sessionId: string): Promise<ArchiveRecord[]> => {
    const ns = current.archive(sessionId);
    const old = legacy.archive(sessionId);
    const items = differs(ns, old)
      ? [...(await unlessRefused(() => list(old), [], sessionId)), ...(await list(ns))]
      : await list(ns);
    // An item written under both layouts is one record: the first archived wins, as in append.
    const byRef = new Map<string, ArchiveRecord>();
    for (const record of items.map((item) => recordOf(item))) {
      const seen = byRef.get(record.ref);
      if (!seen || record.archivedAt < seen.archivedAt) byRef.set(record.ref, record);
    }
    return [...byRef.values()].sort(compareArchiveRecords);
  };

  const archived = async (sessionId: string, ref: string): Promise<Item | null> => {
    const ns = current.archive(sessionId);
    const old = legacy.archive(sessionId);
    const item = await store.get(ns, current.key(ref));
    if (item || (!differs(ns, old) && current.key(ref) === legacy.key(ref))) return item;
    return unlessRefused(() => store.get(old, legacy.key(ref)), null, sessionId, ref);
  };

  return checkedStore({
    getDocument: readDocument,
    async putDocument<T>(
      namespace: string,
      key: string,
      value: T,
      expectedVersion: number,
    ): Promise<PutResult> {
      const currentVersion = (await readDocument(namespace, key))?.version ?? 0;
      if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
      const version = currentVersion + 1;
      await store.put(current.doc(namespace), current.key(key), { ...toJsonBackend(value), version }, false);
      return { ok: true, version };
    },
    async appendArchive(sessionId, records) {
      const written = new Set<string>();
      for (const record of records) {
        if (written.has(record.ref) || (await archived(sessionId, record.ref))) continue;
        const form = toJsonBackend(record);
        // Kept as the record itself when it can be (readable in the backend's tools, and what an
        // earlier release reads); as its JSON text when it holds NUL.
        await store.put(
          current.archive(sessionId),
          current.key(record.ref),
          form.value ?? { json: form.json },
          false,
        );
        written.add(record.ref);
      }
    },
    async getArchive(sessionId, ref) {
      const item = await archived(sessionId, ref);
      return item ? recordOf(item) : undefined;
    },
    async rangeArchive(sessionId, from, to) {
      return (await archive(sessionId)).filter((r) => r.seq >= from && r.seq <= to);
    },
    async searchArchive(sessionId, query, limit) {
      const needle = query.toLowerCase();
      if (needle.length === 0 || limit <= 0) return [];
      return (await archive(sessionId))
        .filter((r) => entryText(r.entry).toLowerCase().includes(needle))
        .slice(0, limit);
    },
  });
}

function layout(label: (text: string) => string, key: (key: string) => string, prefix: string): Layout {
  return {
    doc: (namespace) => [prefix, 'doc', ...namespace.split('/').map(label)],
    archive: (sessionId) => [prefix, 'archive', label(sessionId)],
    key,
  };
}

/** A stored archive item as the record it holds (a copy). */
function recordOf(item: Item): ArchiveRecord {
  const value = item.value as { json?: unknown };
  return typeof value.json === 'string'
    ? (JSON.parse(value.json) as ArchiveRecord)
    : (fromJsonBackend<ArchiveRecord>({ value }) as ArchiveRecord);
}

/** The labels releases before `storeLabel` wrote: percent-encoding with `.` escaped, `%` for empty. */
function legacyLabel(text: string): string {
  return text.length === 0 ? '%' : encodeURIComponent(text).replaceAll('.', '%2E');
}

function differs(a: readonly string[], b: readonly string[]): boolean {
  return a.length !== b.length || a.some((label, i) => label !== b[i]);
}

/**
 * A read under the earlier layout, or `fallback` when the backend refuses its labels
 * (`PostgresStore` refuses `%` and `_`) or a label or key holds NUL: such data can never have
 * been written there.
 */
async function unlessRefused<T>(read: () => Promise<T>, fallback: T, ...texts: string[]): Promise<T> {
  // Postgres text holds no NUL, so no earlier release can have written one there.
  if (texts.some((text) => text.includes('\u0000'))) return fallback;
  try {
    return await read();
  } catch (error) {
    if (error instanceof Error && /invalid namespace/i.test(error.message)) return fallback;
    throw error;
  }
}

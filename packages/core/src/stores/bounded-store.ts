import { detachedCopy, type Store } from '../contracts/store.ts';
import { withTimeout } from '../util/timeout.ts';
import type { NotesBackend } from './notes-backend.ts';

/**
 * The configured store with a deadline on every call: a store is user code or a network
 * service, and one that never answers would hang `prepare`. Past `ms` the call rejects, which
 * every caller already handles (a `store-failed` event; no eviction without its archive
 * write). Synchronous throws become rejections the same way. What it is given to keep is a
 * copy: the records hold the host's messages and the documents the live ledger.
 */
export function boundedStore(store: Store, ms: number): Store {
  const bounded = <T>(what: string, call: () => Promise<T>) => withTimeout(call, ms, `the store's ${what}`);
  return {
    getDocument: (namespace, key) => bounded('getDocument', () => store.getDocument(namespace, key)),
    ...(store.documentVersion
      ? {
          documentVersion: (namespace: string, key: string) =>
            bounded('documentVersion', () => store.documentVersion!(namespace, key)),
        }
      : {}),
    putDocument: (namespace, key, value, expectedVersion) =>
      bounded('putDocument', () => store.putDocument(namespace, key, detachedCopy(value), expectedVersion)),
    appendArchive: (sessionId, records) =>
      bounded('appendArchive', () => store.appendArchive(sessionId, detachedCopy(records))),
    getArchive: (sessionId, ref) => bounded('getArchive', () => store.getArchive(sessionId, ref)),
    rangeArchive: (sessionId, from, to) =>
      bounded('rangeArchive', () => store.rangeArchive(sessionId, from, to)),
    searchArchive: (sessionId, query, limit) =>
      bounded('searchArchive', () => store.searchArchive(sessionId, query, limit)),
  };
}

/**
 * A notes backend the user passed (Mastra's working memory, their own service) under the same
 * deadline as the store: notes are read before every model call, so a backend that never
 * answers would hang `prepare`, and a write would hang the agent's `notes` tool. What crosses
 * the seam is copied both ways, so neither side can edit the other's sections later.
 */
export function boundedNotes(notes: NotesBackend, ms: number): NotesBackend {
  const bounded = <T>(what: string, call: () => Promise<T>) =>
    withTimeout(call, ms, `the notes backend's ${what}`);
  return {
    read: (sessionId) => bounded('read', async () => detachedCopy(await notes.read(sessionId))),
    ...(notes.version
      ? { version: (sessionId: string) => bounded('version', () => notes.version!(sessionId)) }
      : {}),
    write: (sessionId, sections, expectedVersion) =>
      bounded('write', () => notes.write(sessionId, detachedCopy(sections), expectedVersion)),
  };
}

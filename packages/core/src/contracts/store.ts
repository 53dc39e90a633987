import type { Entry } from '../transcript/transcript.ts';

/** A document with its version, as read from a store. */
export interface VersionedDocument<T> {
  value: T;
  version: number;
}

/** Result of a compare-and-set write. */
export type PutResult = { ok: true; version: number } | { ok: false; currentVersion: number };

/** One evicted entry, verbatim, as kept by the archive. */
export interface ArchiveRecord {
  /** Address for `recall({ ref })`: the entry key. */
  ref: string;
  seq: number;
  /** The entry exactly as it was evicted (content byte-identical). */
  entry: Entry;
  /** The stage that evicted it first. */
  stage: string;
  /** Epoch milliseconds of the first eviction. */
  archivedAt: number;
}

/**
 * Persistence contract: namespaced versioned documents with compare-and-set, and an
 * append-only archive per session with text search. Every backend runs the same
 * conformance suite.
 */
export interface Store {
  getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined>;
  /**
   * Optional: only the version of a document (0 when absent), so a reader that already holds
   * that version skips reading and parsing it again. Sessions check the ledger every call.
   */
  documentVersion?(namespace: string, key: string): Promise<number>;
  /**
   * Writes when the stored version equals `expectedVersion` (`0` = must not exist yet).
   * Returns the new version, or the current one on conflict.
   */
  putDocument<T>(namespace: string, key: string, value: T, expectedVersion: number): Promise<PutResult>;
  /** Appends records; a record whose ref is already archived for the session is kept as first written. */
  appendArchive(sessionId: string, records: readonly ArchiveRecord[]): Promise<void>;
  getArchive(sessionId: string, ref: string): Promise<ArchiveRecord | undefined>;
  /** Records with `from <= seq <= to`, ordered by seq. */
  rangeArchive(sessionId: string, from: number, to: number): Promise<ArchiveRecord[]>;
  /** Records whose text contains `query` (case-insensitive), ordered by seq. */
  searchArchive(sessionId: string, query: string, limit: number): Promise<ArchiveRecord[]>;
}

/** Archive order: by seq, then ref (every store returns ranges and searches in this order). */
export function compareArchiveRecords(a: ArchiveRecord, b: ArchiveRecord): number {
  return a.seq - b.seq || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);
}

/** Deep copy through JSON: what a persistent store would give back, and no aliasing with live objects. */
export function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A deep copy for user code (a store, a summarizer, a judge, a custom stage): what it is given
 * holds the host's messages or the live ledger, which one that edits its input must not reach.
 */
export function detachedCopy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return cloneJson(value); // values structuredClone refuses (functions, class instances)
  }
}

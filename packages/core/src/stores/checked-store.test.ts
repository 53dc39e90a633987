import { describe, expect, it } from 'vitest';
import type { ArchiveRecord, PutResult, Store, VersionedDocument } from '../contracts/store.ts';
import { checkedStore } from './checked-store.ts';
import { memoryStore } from './memory-store.ts';

/** A store written as a class, as many are: its extra methods live on the prototype. */
class ClassStore implements Store {
  private readonly inner = memoryStore();
  closed = false;
  getDocument<T>(namespace: string, key: string): Promise<VersionedDocument<T> | undefined> {
    return this.inner.getDocument<T>(namespace, key);
  }
  putDocument<T>(namespace: string, key: string, value: T, expectedVersion: number): Promise<PutResult> {
    return this.inner.putDocument(namespace, key, value, expectedVersion);
  }
  appendArchive(sessionId: string, records: readonly ArchiveRecord[]): Promise<void> {
    return this.inner.appendArchive(sessionId, records);
  }
  getArchive(sessionId: string, ref: string): Promise<ArchiveRecord | undefined> {
    return this.inner.getArchive(sessionId, ref);
  }
  rangeArchive(sessionId: string, from: number, to: number): Promise<ArchiveRecord[]> {
    return this.inner.rangeArchive(sessionId, from, to);
  }
  searchArchive(sessionId: string, query: string, limit: number): Promise<ArchiveRecord[]> {
    return this.inner.searchArchive(sessionId, query, limit);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('checkedStore', () => {
  it('keeps the methods a class-based store has beyond the contract', async () => {
    const store = new ClassStore();
    const checked = checkedStore(store);
    await checked.close();
    expect(typeof checked.close).toBe('function');
    await expect(checked.searchArchive('s', 'x', -1)).rejects.toMatchObject({ name: 'BatonConfigError' });
    expect((await checked.putDocument('ns', 'k', 1, 0)).ok).toBe(true);
    expect((await store.getDocument('ns', 'k'))?.value).toBe(1);
  });
});

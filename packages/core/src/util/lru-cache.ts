/**
 * A bounded map that forgets the least recently used key first. Sessions are cheap to
 * rebuild (their ledger and state are in the store and reloaded on every call), so a
 * long-running server keeps only the conversations it is serving instead of every one it
 * has ever seen.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`[baton] [lru] capacity must be a positive integer, received ${capacity}`);
    }
    this.capacity = capacity;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value for `key`, created by `create` when absent; either way `key` becomes the most recent. */
  getOrCreate(key: K, create: () => V): V {
    const found = this.entries.get(key);
    if (found !== undefined || this.entries.has(key)) {
      // Map keeps insertion order: re-inserting moves the key to the young end.
      this.entries.delete(key);
      this.entries.set(key, found as V);
      return found as V;
    }
    const value = create();
    this.entries.set(key, value);
    this.evict();
    return value;
  }

  private evict(): void {
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  /** The value for `key` without changing its recency. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` as the most recent; the least recent goes when over capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.evict();
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }
}

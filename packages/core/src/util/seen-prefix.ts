/**
 * The history a whole-history pass saw at the last call, so the next call can pass over what
 * is new only. A host sends the same history plus its new messages at every call: a pass over
 * all of it at each call makes a run of n calls cost n² (an 8,000-message replay spent over a
 * third of its time re-checking, re-pairing and re-applying the ledger to messages it had
 * already seen).
 *
 * Seen means the same objects at the same positions, compared by identity (a pointer compare
 * per entry, some hundred times cheaper than any of those passes). Entries are values, as the
 * content-hash and token-count memos already take them to be: a host that changes a message
 * passes a new entry object for it, and an entry edited in place is not looked at again.
 *
 * @example
 * const seen = new SeenPrefix();
 * const from = seen.known(entries); // 0 on the first call, entries seen before on the next
 * for (let i = from; i < entries.length; i++) check(entries[i]);
 * seen.see(entries, from);
 */
export class SeenPrefix {
  private seen: unknown[] = [];

  /**
   * How many leading entries of `entries` were seen: all of the last seen history when
   * `entries` starts with it (a retry, or the same history grown), else 0.
   */
  known(entries: readonly unknown[]): number {
    const seen = this.seen;
    if (seen.length === 0 || seen.length > entries.length) return 0;
    // From the newest: where a rewritten history differs from the last one, most often.
    for (let i = seen.length - 1; i >= 0; i--) if (entries[i] !== seen[i]) return 0;
    return seen.length;
  }

  /** Records `entries` as seen; the first `known` of them (from `known()`) already were. */
  see(entries: readonly unknown[], known: number): void {
    if (known === 0) this.seen = entries.slice();
    else for (let i = known; i < entries.length; i++) this.seen.push(entries[i]);
  }

  /** Nothing is known any more (the pass found something it must look at in full next time). */
  forget(): void {
    this.seen = [];
  }
}

import type { ArchiveRecord, Store } from '../contracts/store.ts';
import { BatonConfigError } from '../util/errors.ts';

/** Read access to a session's evicted entries, byte-identical to what was evicted. */
export interface ArchiveApi {
  get(ref: string): Promise<ArchiveRecord | undefined>;
  /** Records with `from <= seq <= to`, ordered by seq. */
  range(from: number, to: number): Promise<ArchiveRecord[]>;
  /** Case-insensitive text search, ordered by seq. Default limit 20. */
  search(text: string, options?: { limit?: number }): Promise<ArchiveRecord[]>;
}

export function archiveApi(store: Store, sessionId: string): ArchiveApi {
  return {
    get: (ref) => store.getArchive(sessionId, ref),
    range: (from, to) => store.rangeArchive(sessionId, from, to),
    search: (text, options) => {
      const limit = options?.limit ?? 20;
      // Stores answered -1, NaN and 1.5 each their own way: one rule, at the API.
      if (!Number.isInteger(limit) || limit < 1)
        return Promise.reject(
          new BatonConfigError(
            `[baton] [archive] search limit must be a whole number of at least 1, received ${String(limit)}`,
            ['limit'],
          ),
        );
      return store.searchArchive(sessionId, text, limit);
    },
  };
}

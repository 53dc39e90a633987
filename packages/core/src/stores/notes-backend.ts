import type { PutResult, Store } from '../contracts/store.ts';

/** One named section of the agent's notes. */
export interface NoteSection {
  name: string;
  text: string;
}

/** The notes document as Baton's store keeps it. */
export interface NotesDocument {
  sections: NoteSection[];
}

/**
 * Where a session's notes live. Baton's store by default (`storeNotes`); a host with a memory
 * of its own (Mastra's working memory) implements this, so the agent's notes and the host's
 * memory are one text. Writes are compare-and-set: a write whose `expectedVersion` is not the
 * current one is refused with the current version, and the notes re-read and re-apply it.
 *
 * @example
 * ```ts
 * const notes: NotesBackend = {
 *   async read(sessionId) { const row = await db.notes(sessionId); return { sections: row?.sections ?? [], version: row?.version ?? 0 }; },
 *   async write(sessionId, sections, expectedVersion) { return db.casNotes(sessionId, sections, expectedVersion); },
 * };
 * createBaton({ model: 'gpt-4o', notes });
 * ```
 */
export interface NotesBackend {
  /** A session's sections and their version; no sections and version 0 when it has none. */
  read(sessionId: string): Promise<{ sections: NoteSection[]; version: number }>;
  /** Optional: the version alone, when cheaper than a read (checked before every model call). */
  version?(sessionId: string): Promise<number>;
  /** Compare-and-set write of all sections (`expectedVersion` 0: none exist yet). */
  write(sessionId: string, sections: NoteSection[], expectedVersion: number): Promise<PutResult>;
}

/** The one place Baton's store namespace for notes is named. */
const NAMESPACE = 'baton/notes';

/** Notes as one document per session in a Baton `Store`: the default backend. */
export function storeNotes(store: Store): NotesBackend {
  return {
    async read(sessionId) {
      const stored = await store.getDocument<NotesDocument>(NAMESPACE, sessionId);
      return { sections: stored?.value.sections ?? [], version: stored?.version ?? 0 };
    },
    ...(store.documentVersion
      ? {
          version: (sessionId: string) =>
            (store.documentVersion as NonNullable<Store['documentVersion']>)(NAMESPACE, sessionId),
        }
      : {}),
    write(sessionId, sections, expectedVersion) {
      return store.putDocument<NotesDocument>(NAMESPACE, sessionId, { sections }, expectedVersion);
    },
  };
}

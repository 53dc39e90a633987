import type { Entry, Session } from '@baton/core';
import { LruCache, type PromptMessage, promptToEntries } from '@baton/core/internals';
import { type StoredMessage, storedMessageSeqs } from './message-seqs.ts';

/**
 * The entries of the prompt Mastra hands `processLLMRequest`, keyed by content and, for a
 * memory thread, numbered by each stored message's time: Mastra's `lastMessages` window drops
 * the oldest messages as a thread grows, and decisions, archive records and the seq ranges the
 * agent is told must keep meaning the same messages. `windowed` is true when they were
 * numbered so (the window slides past the opening request). `stored` is the thread's stored
 * messages (`messageList.get.all.db()`), undefined for a run without a memory thread.
 *
 * @example
 * const { entries, windowed } = windowEntries(prompt, args.messageList?.get.all.db(), run.epoch);
 */
export function windowEntries(
  prompt: PromptMessage[],
  stored: readonly StoredMessage[] | undefined,
  epoch: number | undefined,
): { entries: Entry[]; windowed: boolean } {
  const seqs = stored ? storedMessageSeqs(prompt, stored, epoch ?? 0) : undefined;
  const entries = promptToEntries(prompt, undefined, 'content', seqs && ((message) => seqs.get(message)));
  return { entries, windowed: seqs !== undefined };
}

/**
 * Each session's last prompt, as entries (bounded like the core's sessions): what slid out of
 * Mastra's window since a session's last call is archived, so `recall` reaches turns older
 * than `lastMessages`.
 *
 * @example
 * const windows = new WindowArchive(core.options.maxSessions);
 * await windows.archiveDropped(session, entries); // before session.prepare
 */
export class WindowArchive {
  private readonly windows: LruCache<string, Entry[]>;

  constructor(maxSessions: number) {
    this.windows = new LruCache(maxSessions);
  }

  /** Remembers this call's window and archives the entries of the previous one it no longer holds. */
  async archiveDropped(session: Session, entries: Entry[]): Promise<void> {
    const previous = this.windows.get(session.id);
    this.windows.set(session.id, entries);
    if (!previous) return;
    const present = new Set(entries.map((entry) => entry.key));
    const dropped = previous.filter((entry) => !present.has(entry.key));
    if (dropped.length > 0) await session.archiveDropped(dropped);
  }
}

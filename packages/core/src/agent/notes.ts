import type { BatonEventBody } from '../contracts/events.ts';
import type { NoteSection, NotesBackend } from '../stores/notes-backend.ts';
import { describeError } from '../util/errors.ts';

/** Thrown by a write that would exceed the cap or could not be stored; the notes tool turns it into a tool error. */
export class NotesError extends Error {
  override readonly name = 'NotesError';
}

/** The agent's durable notes: written = stored = rendered into every call's system prompt. */
export interface NotesApi {
  /** All sections, or one by name (undefined when absent). */
  read(): Promise<NoteSection[]>;
  read(section: string): Promise<NoteSection | undefined>;
  /** Replaces a section (creates it when absent). An empty text removes it. */
  write(section: string, text: string): Promise<NoteSection[]>;
  /** Appends a line to a section (creates it when absent). */
  append(section: string, text: string): Promise<NoteSection[]>;
  /** Tokens the rendered notes take now, and the cap. */
  usage(): Promise<{ tokens: number; cap: number }>;
}

/** Compare-and-set attempts of one write before it is refused (each re-reads and re-applies). */
const MAX_ATTEMPTS = 16;

export const NOTES_HEADING =
  '## Your notes (durable: kept verbatim through every compaction; edit with the notes tool)';

/** The block rendered into the system prompt; empty when there are no notes. */
export function renderNotes(sections: readonly NoteSection[]): string {
  if (sections.length === 0) return '';
  return [NOTES_HEADING, ...sections.map((s) => `### ${s.name}\n${s.text}`)].join('\n\n');
}

/**
 * Notes of one session, in its `NotesBackend` (Baton's store by default). Writes are compare-and-set against the stored version
 * (another worker's write is re-read and applied on top, never overwritten blindly) and
 * refused, with the cap and the current size, when the rendered notes would exceed the cap.
 */
export class Notes implements NotesApi {
  private cache: { sections: NoteSection[]; version: number } | undefined;

  constructor(
    private readonly backend: NotesBackend,
    private readonly sessionId: string,
    /** Tokens the rendered notes may take, as of now (the latest call's window sets it). */
    private readonly capNow: () => number,
    private readonly countText: (text: string) => number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Current sections from the store (cached; the store is re-read after a failed write). */
  async sections(): Promise<NoteSection[]> {
    this.cache ??= await this.backend.read(this.sessionId);
    return this.cache.sections;
  }

  /**
   * Makes the next read see what other workers or the host wrote meanwhile: the cached copy is
   * kept only while the store reports the same version (stores that can tell cheaply).
   */
  async refresh(): Promise<void> {
    if (!this.cache) return;
    const version = await this.backend.version?.(this.sessionId);
    if (version !== this.cache.version) this.cache = undefined;
  }

  read(): Promise<NoteSection[]>;
  read(section: string): Promise<NoteSection | undefined>;
  async read(section?: string): Promise<NoteSection[] | NoteSection | undefined> {
    const sections = await this.sections();
    return section === undefined ? sections : sections.find((s) => s.name === section);
  }

  write(section: string, text: string): Promise<NoteSection[]> {
    return this.update(section, () => text);
  }

  append(section: string, text: string): Promise<NoteSection[]> {
    return this.update(section, (current) => (current ? `${current}\n${text}` : text));
  }

  async usage(): Promise<{ tokens: number; cap: number }> {
    return { tokens: this.countText(renderNotes(await this.sections())), cap: this.capNow() };
  }

  private async update(
    section: string,
    change: (current: string | undefined) => string,
  ): Promise<NoteSection[]> {
    const name = section.trim();
    if (name.length === 0) throw new NotesError('section name must not be empty');
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Contended (several workers writing one session's notes): back off a random while.
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, this.random() * 2 ** Math.min(attempt, 6)));
      const sections = await this.sections();
      const version = this.cache!.version;
      const current = sections.find((s) => s.name === name);
      const text = change(current?.text);
      const next =
        text.length === 0
          ? sections.filter((s) => s.name !== name)
          : current
            ? sections.map((s) => (s.name === name ? { name, text } : s))
            : [...sections, { name, text }];
      const tokens = this.countText(renderNotes(next));
      const cap = this.capNow();
      if (tokens > cap) {
        const now = this.countText(renderNotes(sections));
        throw new NotesError(
          `notes are capped at ${cap} tokens; they take ${now} now and this write would make them ${tokens}. Shorten or remove a section first (write it with empty text to remove it).`,
        );
      }
      const put = await this.backend.write(this.sessionId, next, version);
      if (put.ok) {
        this.cache = { sections: next, version: put.version };
        return next;
      }
      this.cache = undefined; // someone else wrote: re-read and apply the change on top
    }
    throw new NotesError(`notes changed concurrently ${MAX_ATTEMPTS} times in a row; try again`);
  }
}

/** The notes rendered now; undefined when they could not be read (the block stays as it was). */
export async function renderedNotes(
  notes: Notes,
  emit: (event: BatonEventBody) => void,
): Promise<string | undefined> {
  try {
    // Re-read every call: notes written by another worker, or by the host's own memory tool
    // (Mastra's working memory), are in this call's prompt, not a stale copy.
    await notes.refresh();
    return renderNotes(await notes.sections());
  } catch (error) {
    emit({ type: 'store-failed', operation: 'readNotes', error: describeError(error) });
    return undefined;
  }
}

import type { NoteSection, NotesBackend } from '@baton/core';
import { describe, expect, it } from 'vitest';

/**
 * The contract of a `NotesBackend` (where an agent's notes live: Baton's store, Mastra's
 * working memory, or yours): sections round-trip byte-identical in order, writes are
 * compare-and-set on the version, `version()` (when offered) agrees with `read()`, and one
 * session never sees another's notes. `create` returns a backend with no notes in it.
 *
 * @example
 * ```ts
 * describeNotesBackendConformance('store notes', { create: () => storeNotes(memoryStore()) });
 * ```
 */
export function describeNotesBackendConformance(
  name: string,
  options: { create: () => NotesBackend | Promise<NotesBackend> },
): void {
  const plan: NoteSection[] = [{ name: 'plan', text: 'audit, then ship' }];
  describe(`notes backend conformance: ${name}`, () => {
    it('reads no sections for a session that has none', async () => {
      const backend = await options.create();
      const read = await backend.read('fresh');
      expect(read.sections).toEqual([]);
      expect(await backend.write('fresh', plan, read.version)).toMatchObject({ ok: true });
    });

    it('writes with compare-and-set: a stale writer is refused and told the current version', async () => {
      const backend = await options.create();
      const start = await backend.read('s');
      const first = await backend.write('s', plan, start.version);
      if (!first.ok) throw new Error('the first write was refused');
      expect(await backend.read('s')).toEqual({ sections: plan, version: first.version });
      const stale = await backend.write('s', [{ name: 'plan', text: 'other' }], start.version);
      expect(stale).toEqual({ ok: false, currentVersion: first.version });
      const next: NoteSection[] = [...plan, { name: 'facts', text: 'shard 2 is corrupt' }];
      const second = await backend.write('s', next, first.version);
      expect(second.ok).toBe(true);
      expect((await backend.read('s')).sections).toEqual(next);
    });

    it('reports the same version from version() as from read(), when it offers version()', async () => {
      const backend = await options.create();
      // Without version() the core re-reads before every call: reads must then agree with each other.
      if (!backend.version) {
        expect((await backend.read('v')).version).toBe((await backend.read('v')).version);
        return;
      }
      expect(await backend.version('v')).toBe((await backend.read('v')).version);
      await backend.write('v', plan, (await backend.read('v')).version);
      expect(await backend.version('v')).toBe((await backend.read('v')).version);
    });

    it('never shows one session another session’s notes', async () => {
      const backend = await options.create();
      await backend.write('session-a', plan, (await backend.read('session-a')).version);
      expect((await backend.read('session-b')).sections).toEqual([]);
      expect((await backend.read('session-a')).sections).toEqual(plan);
    });

    it('keeps odd Unicode and multi-line text byte-identical', async () => {
      const backend = await options.create();
      const odd: NoteSection[] = [
        { name: 'emoji 🧭', text: 'ZWJ 👩‍👩‍👧 and RTL \u202Eevil\u202C' },
        { name: 'cjk', text: '中文 日本語 한국어\nsecond line\n- a list item' },
      ];
      await backend.write('odd', odd, (await backend.read('odd')).version);
      expect((await backend.read('odd')).sections).toEqual(odd);
    });
  });
}

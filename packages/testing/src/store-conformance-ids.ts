import { entryText, type Store } from '@baton/core';
import { expect, it } from 'vitest';
import { archiveRecord } from './archive-record.ts';

/**
 * Session ids real hosts produce that backends reserve characters of: LIKE wildcards and
 * escapes, periods, separators, quotes, spaces, non-ASCII, a sub-agent session, and text that
 * looks like an escaped label already.
 */
export const hostileIds: readonly string[] = [
  'user_42',
  'a.b',
  '\u00C4rger',
  "o'neil",
  'thread-1|tools:call_abc',
  'chat 1',
  'run:7f3a9c',
  '100%',
  'back\\slash',
  '%41',
  '~41',
  '~',
  'nul\u0000id',
  '\u{1F9ED} compass',
];

/**
 * The conformance cases about ids: a session reads only its own documents and records, whatever
 * its id looks like to the backend (prefixes of other ids, characters the backend reserves,
 * lone surrogates refused), and refs and keys stay apart byte for byte. Registered inside
 * `describeStoreConformance`.
 */
export function testsSessionIds(fresh: () => Store | Promise<Store>): void {
  it('refuses ids with lone surrogates instead of folding them into one row', async () => {
    const store = await fresh();
    for (const id of ['p\uD800', 'p\uDC00', 'x\uDBFFy']) {
      await expect(store.appendArchive(id, [archiveRecord(1, 'secret')]), id).rejects.toMatchObject({
        name: 'BatonConfigError',
      });
      await expect(store.putDocument(`${id}/notes`, 'notes', 'secret', 0)).rejects.toMatchObject({
        name: 'BatonConfigError',
      });
      await expect(store.getDocument('ns', id)).rejects.toMatchObject({ name: 'BatonConfigError' });
      await expect(store.searchArchive(id, 'secret', 10)).rejects.toMatchObject({
        name: 'BatonConfigError',
      });
    }
    await expect(store.appendArchive('s', [archiveRecord(1, 'x', 'ref\uD800')])).rejects.toMatchObject({
      name: 'BatonConfigError',
    });
    // U+FFFD itself and well-formed pairs are ordinary text.
    await store.appendArchive('p\uFFFD', [archiveRecord(1, 'replacement char session')]);
    await store.appendArchive('p\uD83E\uDDED', [archiveRecord(1, 'compass session')]);
    expect((await store.searchArchive('p\uFFFD', 'session', 10)).map((r) => r.entry.parts)).toHaveLength(1);
    expect(await store.searchArchive('p\uFFFD', 'compass', 10)).toEqual([]);
  });

  it('never lets one session read another session’s notes or archive', async () => {
    const store = await fresh();
    await store.putDocument('session-a/notes', 'notes', 'secret of A', 0);
    await store.appendArchive('session-a', [archiveRecord(1, 'archived secret of A')]);
    expect(await store.getDocument('session-b/notes', 'notes')).toBeUndefined();
    expect(await store.getArchive('session-b', 'ref-1')).toBeUndefined();
    expect(await store.rangeArchive('session-b', 0, 10)).toEqual([]);
    expect(await store.searchArchive('session-b', 'secret', 10)).toEqual([]);
    // Prefix-looking ids are different sessions too.
    expect(await store.rangeArchive('session-', 0, 10)).toEqual([]);
    expect(await store.searchArchive('session-a ', 'secret', 10)).toEqual([]);
    expect((await store.searchArchive('session-a', 'secret', 10)).map((r) => r.seq)).toEqual([1]);
  });

  it('scopes every read to exactly its own session, whatever the ids look like', async () => {
    const store = await fresh();
    // Ids that are prefixes of each other (a backend's LIKE or prefix search matches them
    // all), ids holding what backends reserve (LIKE wildcards, periods, separators, an escape
    // character), non-ASCII, and an id longer than a backend's label limit might be.
    const ids = [
      ...hostileIds,
      'chat-1',
      'chat-12',
      'chat-1:x',
      'chat-1/x',
      'chat-',
      'CHAT-1',
      'x'.repeat(300),
      `${'x'.repeat(299)}y`,
    ];
    for (const [i, id] of ids.entries()) {
      await store.putDocument(`${id}/notes`, 'notes', `notes #${i}`, 0);
      await store.appendArchive(id, [
        archiveRecord(1, `secret #${i}#`, 'ref-1'),
        archiveRecord(2 + i, `more #${i}#`),
      ]);
    }
    for (const [i, id] of ids.entries()) {
      expect((await store.getDocument(`${id}/notes`, 'notes'))?.value, id).toBe(`notes #${i}`);
      expect((await store.getArchive(id, 'ref-1'))?.entry, id).toEqual(
        archiveRecord(1, `secret #${i}#`).entry,
      );
      expect(
        (await store.rangeArchive(id, 0, 1_000)).map((r) => entryText(r.entry)),
        id,
      ).toEqual([`secret #${i}#`, `more #${i}#`]);
      expect(
        (await store.searchArchive(id, '#', 100)).map((r) => entryText(r.entry)),
        id,
      ).toEqual([`secret #${i}#`, `more #${i}#`]);
    }
  });

  it('keeps refs and keys that backends reserve apart and byte-identical', async () => {
    const store = await fresh();
    const refs = ['call.1', 'call%2E1', 'call_1', 'call~1', 'a\\b', 'a:b', 'a/b', 'nul\u0000ref', ''];
    await store.appendArchive(
      's',
      refs.map((ref, i) => archiveRecord(i + 1, `record ${i} \u0000 ${ref}`, ref)),
    );
    for (const [i, ref] of refs.entries()) {
      expect(await store.getArchive('s', ref), JSON.stringify(ref)).toEqual(
        archiveRecord(i + 1, `record ${i} \u0000 ${ref}`, ref),
      );
      await store.putDocument('s/notes', ref, { ref, nul: 'a\u0000b' }, 0);
    }
    for (const ref of refs) {
      expect((await store.getDocument('s/notes', ref))?.value, JSON.stringify(ref)).toEqual({
        ref,
        nul: 'a\u0000b',
      });
    }
    expect((await store.rangeArchive('s', 0, 100)).map((r) => r.ref)).toEqual(refs);
  });
}

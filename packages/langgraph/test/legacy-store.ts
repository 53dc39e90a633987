import { readFileSync } from 'node:fs';
import { archiveRecord } from '@baton/testing';
import type { BaseStore } from '@langchain/langgraph';
import { expect, it } from 'vitest';
import { langGraphStore } from '../src/langgraph-store.ts';

interface StoredItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
}

/**
 * Items the released `langGraphStore` wrote (percent-encoded labels, raw keys) for four
 * sessions: notes at version 2, a ledger, two archived results each. Made by running that
 * release's bridge over an `InMemoryStore` and listing what it held.
 */
const fixture = JSON.parse(readFileSync(new URL('./legacy-store-items.json', import.meta.url), 'utf8')) as {
  items: StoredItem[];
};

/**
 * Data an earlier release wrote stays readable: restores the fixture into `backend` (the items
 * the backend refuses could never have been written there) and reads and writes it through
 * today's bridge.
 */
export function testsLegacyLayout(backend: () => Promise<{ store: BaseStore; prefix: string }>): void {
  it('reads notes, ledgers and archives an earlier release wrote, and writes on from them', async () => {
    const { store: raw, prefix } = await backend();
    const sessions = new Set<string>();
    for (const item of fixture.items) {
      const namespace = [prefix, ...item.namespace.slice(1)];
      try {
        await raw.put(namespace, item.key, item.value, false);
        sessions.add(decodeURIComponent(item.namespace[2] as string));
      } catch (error) {
        expect(String(error)).toMatch(/invalid namespace label/i);
      }
    }
    expect(sessions.size).toBeGreaterThanOrEqual(2);
    const store = langGraphStore(raw, prefix);
    for (const id of sessions) {
      expect(await store.getDocument(`${id}/notes`, 'notes'), id).toEqual({
        value: { body: `notes of ${id}, v2` },
        version: 2,
      });
      expect((await store.getArchive(id, 'call_abc:result'))?.entry, id).toEqual(
        archiveRecord(1, `first result of ${id}`, 'call_abc:result').entry,
      );
      expect((await store.searchArchive(id, 'second result', 10)).map((r) => r.ref)).toEqual(['2-9f8e7d6c']);
      // Writing on: the version continues from the old document, a ref archived before is not
      // archived twice, and new records sit beside the old ones.
      expect(await store.putDocument(`${id}/notes`, 'notes', { body: 'v3' }, 2)).toEqual({
        ok: true,
        version: 3,
      });
      expect(await store.getDocument(`${id}/notes`, 'notes')).toEqual({ value: { body: 'v3' }, version: 3 });
      await store.appendArchive(id, [
        archiveRecord(1, 'a second write of the same ref', 'call_abc:result'),
        archiveRecord(3, `third result of ${id}`, 'call_def'),
      ]);
      expect((await store.rangeArchive(id, 0, 10)).map((r) => [r.ref, r.seq])).toEqual([
        ['call_abc:result', 1],
        ['2-9f8e7d6c', 2],
        ['call_def', 3],
      ]);
      expect((await store.getArchive(id, 'call_abc:result'))?.entry.parts[0]).toMatchObject({
        output: `first result of ${id}`,
      });
    }
  });
}

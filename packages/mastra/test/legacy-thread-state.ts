import { readFileSync } from 'node:fs';
import { archiveRecord } from '@baton/testing';
import type { MastraCompositeStore } from '@mastra/core/storage';
import { Memory } from '@mastra/memory';
import { expect, it } from 'vitest';
import { mastraMemoryStore } from '../src/memory-store.ts';

interface Row {
  threadId: string;
  type: string;
  value: unknown;
}

/**
 * Thread-state rows the released `mastraMemoryStore` wrote (raw thread ids) for four sessions:
 * notes at version 2, a ledger, two archived results each. Recorded from that release's bridge
 * writing to LibSQL.
 */
const fixture = JSON.parse(readFileSync(new URL('./legacy-thread-state.json', import.meta.url), 'utf8')) as {
  rows: Row[];
};

/** Data an earlier release wrote stays readable through today's bridge, and writes go on from it. */
export function testsLegacyThreadState(storage: () => Promise<MastraCompositeStore>): void {
  it('reads notes, ledgers and archives an earlier release wrote, and writes on from them', async () => {
    const backend = await storage();
    const domain = (await backend.getStore('threadState')) as unknown as {
      setState(row: Row): Promise<void>;
    };
    for (const row of fixture.rows) await domain.setState(row);
    const store = mastraMemoryStore(new Memory({ storage: backend }));
    const sessions = [...new Set(fixture.rows.map((row) => row.threadId))];
    expect(sessions).toHaveLength(4);
    for (const id of sessions) {
      expect(await store.getDocument('baton/notes', id), id).toEqual({
        value: { sections: { plan: `notes of ${id}, v2` } },
        version: 2,
      });
      expect((await store.getArchive(id, 'call_abc:result'))?.entry, id).toEqual(
        archiveRecord(1, `first result of ${id}`, 'call_abc:result').entry,
      );
      expect(await store.putDocument('baton/notes', id, { sections: {} }, 2)).toEqual({
        ok: true,
        version: 3,
      });
      expect(await store.getDocument('baton/notes', id)).toEqual({ value: { sections: {} }, version: 3 });
      await store.appendArchive(id, [
        archiveRecord(1, 'a second write of the same ref', 'call_abc:result'),
        archiveRecord(3, `third result of ${id}`, 'call_def'),
      ]);
      expect((await store.rangeArchive(id, 0, 10)).map((r) => [r.ref, r.seq])).toEqual([
        ['call_abc:result', 1],
        ['2-9f8e7d6c', 2],
        ['call_def', 3],
      ]);
      expect((await store.searchArchive(id, 'result of', 10)).map((r) => entryTextOf(r.entry))).toEqual([
        `first result of ${id}`,
        `second result of ${id}`,
        `third result of ${id}`,
      ]);
    }
  });
}

function entryTextOf(entry: { parts: unknown[] }): unknown {
  return (entry.parts[0] as { output: unknown }).output;
}

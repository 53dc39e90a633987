import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BatonEvent,
  createBaton,
  fromOpenAIChat,
  type Ledger,
  memoryStore,
  type Store,
  sqliteStore,
} from '@baton/core';
import { postgresStore } from '@baton/postgres';
import { filler } from '@baton/testing';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type {} from './support/postgres-server.ts';

/** A history of tool rounds, long enough to compact several times at this window. */
function history(rounds: number) {
  return fromOpenAIChat([
    { role: 'user', content: 'Read every log page and report.' },
    ...Array.from({ length: rounds }, (_, i) => [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function' as const, function: { name: 'read', arguments: `{"page":${i}}` } },
        ],
      },
      { role: 'tool' as const, tool_call_id: `c${i}`, content: `page ${i}\n${filler(400, i)}` },
    ]).flat(),
  ]);
}

interface Backend {
  name: string;
  /** A store handle for one worker (a process of its own would have its own). */
  handle(): Promise<Store> | Store;
  close(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'baton-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const url = inject('postgresUrl') || undefined;

function backends(): Backend[] {
  const shared = memoryStore();
  const list: Backend[] = [{ name: 'memory', handle: () => shared, close: async () => {} }];
  let files = 0;
  const path = () => join(dir, `shared-${files}.db`);
  const sqliteHandles: Array<ReturnType<typeof sqliteStore>> = [];
  list.push({
    name: 'sqlite (a handle per worker on one file)',
    handle: () => {
      const store = sqliteStore({ path: path() });
      sqliteHandles.push(store);
      return store;
    },
    close: async () => {
      await Promise.all(sqliteHandles.map((h) => h.close()));
      files++;
    },
  });
  if (url) {
    let schemas = 0;
    const pools: pg.Pool[] = [];
    list.push({
      name: 'postgres (a pool per worker)',
      handle: () => {
        const pool = new pg.Pool({ connectionString: url, max: 4 });
        pools.push(pool);
        return postgresStore({ pool, schema: `baton_conc_${process.pid}_${schemas}` });
      },
      close: async () => {
        await Promise.all(pools.splice(0).map((p) => p.end()));
        schemas++;
      },
    });
  }
  return list;
}

describe('concurrent workers on shared stores', () => {
  for (const backend of backends()) {
    it(`${backend.name}: 8 workers on one session lose no note and no evicted entry`, async () => {
      const full = history(60);
      const events: BatonEvent[] = [];
      const workers = await Promise.all(
        Array.from({ length: 8 }, async () =>
          createBaton({
            contextWindow: 8_000,
            notesCap: 6_000,
            store: await backend.handle(),
            onEvent: (e) => events.push(e),
          }).session('shared'),
        ),
      );
      await Promise.all(
        workers.map(async (session, w) => {
          for (let i = 0; i < 12; i++) {
            await session.notes.append('log', `worker ${w} step ${i}`);
            // Each worker serves a later step of the same conversation.
            await session.prepare({ entries: full.slice(0, 11 + 2 * (w + 8 * i)) });
          }
        }),
      );
      // Conflicts happened and were resolved: no write was given up.
      expect(events.filter((e) => e.type === 'store-failed')).toEqual([]);
      const reader = createBaton({
        contextWindow: 8_000,
        notesCap: 6_000,
        store: await backend.handle(),
      }).session('shared');
      const lines = (await reader.notes.read('log'))!.text.split('\n');
      expect(lines).toHaveLength(8 * 12);
      for (let w = 0; w < 8; w++)
        for (let i = 0; i < 12; i++) expect(lines).toContain(`worker ${w} step ${i}`);
      // Every entry any committed decision evicted is in the archive, byte-identical.
      const store = await backend.handle();
      const ledger = (await store.getDocument<Ledger>('baton/ledger', 'shared'))!.value;
      expect(ledger.decisions.length).toBeGreaterThan(0);
      const byKey = new Map(full.map((e) => [e.key, e]));
      for (const decision of ledger.decisions) {
        for (const key of decision.kind === 'fold' ? [decision.key] : decision.keys) {
          const original = byKey.get(key);
          if (!original) continue; // a synthetic entry of an earlier decision
          expect((await store.getArchive('shared', key))?.entry.parts).toEqual(original.parts);
        }
      }
      await backend.close();
    });

    it(`${backend.name}: 100 concurrent sessions never read each other's notes or archive`, async () => {
      const full = history(30);
      await Promise.all(
        Array.from({ length: 100 }, async (_, s) => {
          const session = createBaton({ contextWindow: 4_000, store: await backend.handle() }).session(
            `session-${s}`,
          );
          await session.notes.write('secret', `secret of session ${s}`);
          await session.prepare({ entries: full });
          const notes = await session.notes.read();
          expect(notes).toEqual([{ name: 'secret', text: `secret of session ${s}` }]);
          const found = await session.archive.search('secret of session');
          expect(found).toEqual([]);
          const archived = await session.archive.range(0, 1_000);
          expect(archived.length).toBeGreaterThan(0);
        }),
      );
      await backend.close();
    });
  }
});

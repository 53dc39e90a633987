import type {} from '@baton/test-support/postgres-server.ts'; // its ProvidedContext
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { describeStoreConformance } from '@baton/testing';
import { Memory } from '@mastra/memory';
import { PostgresStore } from '@mastra/pg';
import { afterAll, describe, inject } from 'vitest';
import { testsLegacyThreadState } from '../test/legacy-thread-state.ts';
import { mastraMemoryStore } from './memory-store.ts';

// `@mastra/pg` is what Mastra apps deploy: its thread state is a jsonb column that strips NUL
// from what it is given, so the bridge is tested here on the real backend, not only on LibSQL.
// The global setup starts the server.
const url = inject('postgresUrl') || undefined;

const storages: PostgresStore[] = [];
const open = () => {
  const storage = new PostgresStore({ id: `baton-test-${storages.length}`, connectionString: url as string });
  storages.push(storage);
  return storage;
};
afterAll(async () => {
  for (const storage of storages) await storage.close();
});

describe.skipIf(
  skipUnless(Boolean(url), "a PostgreSQL server (BATON_PG_URL, or Debian's postgresql to start one)"),
)('Mastra Memory bridge on @mastra/pg', () => {
  let shared: PostgresStore | undefined;
  describeStoreConformance('Mastra Memory (@mastra/pg thread state)', {
    create: async () => {
      shared ??= open();
      await shared.init();
      // One table for the file: every test starts from an empty one.
      await (await shared.getStore('threadState'))?.dangerouslyClearAll();
      return mastraMemoryStore(new Memory({ storage: shared }));
    },
    // A new storage and Memory on the same database: what a restarted process opens.
    reopen: async () => mastraMemoryStore(new Memory({ storage: open() })),
    lacks: {
      documentVersion: 'the thread-state domain reads whole values; there is no cheaper version read',
    },
  });
  testsLegacyThreadState(async () => {
    shared ??= open();
    await shared.init();
    await (await shared.getStore('threadState'))?.dangerouslyClearAll();
    return shared;
  });
});

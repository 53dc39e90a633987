import type {} from '@baton/test-support/postgres-server.ts'; // its ProvidedContext
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { describeStoreConformance } from '@baton/testing';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { afterAll, describe, inject } from 'vitest';
import { testsLegacyLayout } from '../test/legacy-store.ts';
import { langGraphStore } from './langgraph-store.ts';

// LangGraph's PostgresStore is what the LangGraph platform runs: its search matches namespaces
// as a LIKE prefix and it refuses labels holding '.', '%', '_' or '\', so the bridge is tested
// here on the real backend, not only on InMemoryStore. The global setup starts the server.
const url = inject('postgresUrl') || undefined;

const backends: PostgresStore[] = [];
const open = () => {
  const backend = PostgresStore.fromConnString(url as string, { schema: 'langgraph_store' });
  backends.push(backend);
  return backend;
};
afterAll(async () => {
  for (const backend of backends) await backend.stop();
});

let stores = 0;
/** Each test's store under a prefix of its own, in one shared PostgresStore. */
const prefixOf = new WeakMap<object, string>();

describe.skipIf(
  skipUnless(Boolean(url), "a PostgreSQL server (BATON_PG_URL, or Debian's postgresql to start one)"),
)('LangGraph PostgresStore bridge', () => {
  let shared: PostgresStore | undefined;
  describeStoreConformance('LangGraph PostgresStore bridge', {
    create: () => {
      shared ??= open();
      const prefix = `baton-${process.pid}-${stores++}`;
      const store = langGraphStore(shared, prefix);
      prefixOf.set(store, prefix);
      return store;
    },
    // A new PostgresStore and bridge on the same tables: what a restarted worker opens.
    reopen: async (store) => langGraphStore(open(), prefixOf.get(store) as string),
    lacks: { documentVersion: 'a LangGraph BaseStore reads whole items' },
  });
  testsLegacyLayout(async () => {
    shared ??= open();
    return { store: shared, prefix: `legacy-${process.pid}-${stores++}` };
  });
});

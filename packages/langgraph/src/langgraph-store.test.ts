import { describeStoreConformance } from '@baton/testing';
import { InMemoryStore } from '@langchain/langgraph';
import { describe } from 'vitest';
import { testsLegacyLayout } from '../test/legacy-store.ts';
import { langGraphStore } from './langgraph-store.ts';

describeStoreConformance('LangGraph InMemoryStore bridge', {
  create: () => langGraphStore(new InMemoryStore()),
  lacks: {
    documentVersion: 'a LangGraph BaseStore reads whole items',
    reopen: 'InMemoryStore lives in the process',
  },
});

describe('langGraphStore on data an earlier release wrote (InMemoryStore)', () => {
  testsLegacyLayout(async () => ({ store: new InMemoryStore(), prefix: 'baton' }));
});

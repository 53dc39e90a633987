import { describeStoreConformance } from '@baton/testing';
import { InMemoryStore } from '@langchain/langgraph';
import { langGraphStore } from './langgraph-store.ts';

describeStoreConformance('LangGraph InMemoryStore bridge', {
  create: () => langGraphStore(new InMemoryStore()),
  lacks: {
    documentVersion: 'a LangGraph BaseStore reads whole items',
    reopen: 'InMemoryStore lives in the process',
  },
});

import { describeStoreConformance } from '@baton/testing';
import { InMemoryStore } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
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

describe('langGraphStore reads before every model call', () => {
  it('looks for an absent document under the earlier layout once, not on every read', async () => {
    let gets = 0;
    class CountingStore extends InMemoryStore {
      override async get(...args: Parameters<InMemoryStore['get']>) {
        gets++;
        return super.get(...args);
      }
    }
    const store = langGraphStore(new CountingStore());
    // `user_42` is labelled `user~5F42` now and was `user_42` before: a miss reads both, once.
    expect(await store.getDocument('baton/notes', 'user_42')).toBeUndefined();
    expect(gets).toBe(2);
    for (let i = 0; i < 5; i++) expect(await store.getDocument('baton/notes', 'user_42')).toBeUndefined();
    expect(gets).toBe(7);
  });
});

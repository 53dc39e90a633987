import { BatonConfigError } from '@baton/core';
import { describeStoreConformance } from '@baton/testing';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { testsLegacyThreadState } from '../test/legacy-thread-state.ts';
import { mastraMemoryStore } from './memory-store.ts';

const memories = new WeakMap<object, Memory>();

describeStoreConformance('Mastra Memory (LibSQL thread state)', {
  create: () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `store-${Math.random()}`, url: ':memory:' }),
    });
    const store = mastraMemoryStore(memory);
    memories.set(store, memory);
    return store;
  },
  // A new Baton store over the same Memory, as a restarted process would build.
  reopen: async (store) => mastraMemoryStore(memories.get(store)!),
  lacks: { documentVersion: 'the thread-state domain reads whole values; there is no cheaper version read' },
});

describe('mastraMemoryStore', () => {
  it('refuses a storage without the thread-state domain at once, saying what to pass instead', () => {
    const memory = { storage: { stores: { memory: {} } } } as never;
    expect(() => mastraMemoryStore(memory)).toThrow(BatonConfigError);
    expect(() => mastraMemoryStore(memory)).toThrow(/no thread-state domain.*pass store/);
  });
});

describe('mastraMemoryStore on data an earlier release wrote (LibSQL)', () => {
  testsLegacyThreadState(async () => {
    const storage = new LibSQLStore({ id: `legacy-${Math.random()}`, url: ':memory:' });
    await storage.init();
    return storage;
  });
});

describe('mastraMemoryStore reads before every model call', () => {
  it('looks for an absent document under the earlier layout once, not on every read', async () => {
    const storage = new LibSQLStore({ id: `counting-${Math.random()}`, url: ':memory:' });
    await storage.init();
    const domain = (await storage.getStore('threadState')) as unknown as {
      getState: (...args: unknown[]) => Promise<unknown>;
    };
    let reads = 0;
    const getState = domain.getState.bind(domain);
    domain.getState = (...args) => {
      reads++;
      return getState(...args);
    };
    const store = mastraMemoryStore(new Memory({ storage }));
    // `user_42` is keyed `user~5F42` now and was `user_42` before: a miss reads both, once.
    expect(await store.getDocument('baton/notes', 'user_42')).toBeUndefined();
    expect(reads).toBe(2);
    for (let i = 0; i < 5; i++) expect(await store.getDocument('baton/notes', 'user_42')).toBeUndefined();
    expect(reads).toBe(7);
  });
});

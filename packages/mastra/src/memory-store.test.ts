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

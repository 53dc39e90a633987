import { memoryStore } from '@baton/core';
import { describeStoreConformance } from '@baton/testing';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { workingMemoryNotes } from './working-memory-notes.ts';

// The Mastra bridge: notes in working memory, every other document and the archive in Baton's store.
describeStoreConformance('Mastra working-memory bridge', {
  lacks: { reopen: 'the test storage is LibSQL :memory:' },
  create: () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `conformance-${Math.random()}`, url: ':memory:' }),
      options: { workingMemory: { enabled: true, scope: 'resource' } },
    });
    return workingMemoryNotes(memory, memoryStore(), (threadId) => ({ threadId, resourceId: 'conformance' }));
  },
});

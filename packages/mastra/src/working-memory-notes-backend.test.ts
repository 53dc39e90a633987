import { describeNotesBackendConformance } from '@baton/testing';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { workingMemoryNotes } from './working-memory-notes.ts';

// The agent's notes as Mastra's working memory (resource scope): the same contract as Baton's store.
describeNotesBackendConformance('Mastra working memory', {
  create: () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `conformance-${Math.random()}`, url: ':memory:' }),
      options: { workingMemory: { enabled: true, scope: 'resource' } },
    });
    return workingMemoryNotes(memory, (threadId) => ({ threadId, resourceId: `conformance-${threadId}` }));
  },
});

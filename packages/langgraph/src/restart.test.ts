import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import {
  firstProcess,
  type Persistence,
  SECRET,
  secondProcess,
  sqlitePersistence,
} from '../test/restart-scenario.ts';

function expectResumed(resumed: Awaited<ReturnType<typeof secondProcess>>) {
  expect(resumed.system).toContain('### plan\nread 20 pages, then report the key path');
  // The secret was evicted before the restart: only recall can bring it back.
  expect(resumed.seen).not.toContain(`SECRET-PATH=${SECRET}`);
  expect(resumed.answer).toBe(`key path: ${SECRET}`);
}

describe('restart mid-task', () => {
  it('a fresh agent on the same MemorySaver and InMemoryStore sees the notes and recalls what the first one evicted', async () => {
    const persistence: Persistence = {
      checkpointer: new MemorySaver(),
      store: { langGraph: new InMemoryStore() },
    };
    await firstProcess(persistence);
    expectResumed(await secondProcess(persistence));
  });

  it('a new process on the same SqliteSaver file continues the thread with notes and recall intact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-restart-'));
    const path = join(dir, 'thread.db');
    try {
      // The first half runs in a child process that exits: nothing survives but the file.
      const script = fileURLToPath(new URL('../test/restart-scenario.ts', import.meta.url));
      await promisify(execFile)(
        process.execPath,
        ['--conditions=@baton/source', '--import', 'tsx', script, path],
        {
          cwd: fileURLToPath(new URL('..', import.meta.url)),
        },
      );
      const persistence = sqlitePersistence(path);
      try {
        const resumed = await secondProcess(persistence);
        expectResumed(resumed);
        // The checkpoint restored the whole thread: 1 request + 21 tool rounds + 'paused', then the new turn.
        expect(resumed.historyLength).toBeGreaterThan(40);
      } finally {
        await persistence.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

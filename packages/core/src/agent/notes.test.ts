import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry } from '../transcript/transcript.ts';
import { NOTES_HEADING } from './notes.ts';

describe('notes', () => {
  it('reads, writes, appends and removes named sections, in order', async () => {
    const { notes } = createBaton({ contextWindow: 50_000 }).session('s');
    await notes.write('plan', 'step 1');
    await notes.append('plan', 'step 2');
    await notes.write('facts', 'port 8080');
    expect(await notes.read()).toEqual([
      { name: 'plan', text: 'step 1\nstep 2' },
      { name: 'facts', text: 'port 8080' },
    ]);
    expect(await notes.read('facts')).toEqual({ name: 'facts', text: 'port 8080' });
    await notes.write('plan', '');
    expect(await notes.read()).toEqual([{ name: 'facts', text: 'port 8080' }]);
  });

  it('renders into the system prompt of every call, after the host prompt', async () => {
    const session = createBaton({ contextWindow: 50_000 }).session('s');
    await session.notes.write('facts', 'the token lives in vault path secret/ci');
    const prepared = await session.prepare({
      entries: [createEntry(0, 'user', 'hi')],
      system: 'You are helpful.',
    });
    expect(prepared.system.startsWith('You are helpful.\n\n')).toBe(true);
    expect(prepared.system).toContain(
      `${NOTES_HEADING}\n\n### facts\nthe token lives in vault path secret/ci`,
    );
  });

  it('refuses a write over the cap, naming the cap and the current size, and keeps the old notes', async () => {
    const { notes } = createBaton({ contextWindow: 50_000, notesCap: 100 }).session('s');
    await notes.write('plan', 'short plan');
    await expect(notes.append('plan', 'word '.repeat(200))).rejects.toThrow(
      /capped at 100 tokens; they take \d+ now and this write would make them \d+/,
    );
    expect(await notes.read('plan')).toEqual({ name: 'plan', text: 'short plan' });
  });

  it('is durable: another process on the same store sees the notes, and concurrent writers both land', async () => {
    const store = memoryStore();
    const a = createBaton({ contextWindow: 50_000, store }).session('shared').notes;
    const b = createBaton({ contextWindow: 50_000, store }).session('shared').notes;
    await a.read();
    await b.read();
    await a.write('one', 'from a');
    await b.write('two', 'from b'); // stale version: re-read, applied on top
    const fresh = createBaton({ contextWindow: 50_000, store }).session('shared').notes;
    expect(await fresh.read()).toEqual([
      { name: 'one', text: 'from a' },
      { name: 'two', text: 'from b' },
    ]);
  });

  it('shown by the host (renderNotes: false): neither rendered nor told as changed, whatever the notes tool wrote', async () => {
    const session = createBaton({ contextWindow: 50_000 }).session('s');
    const entries = [createEntry(0, 'user', 'hi')];
    const notesTool = session.tools.find((tool) => tool.name === 'notes')!;
    await session.prepare({ entries, renderNotes: false });
    // The agent writes its first notes with Baton's tool; the host (Mastra's working memory
    // message) shows them from then on.
    await notesTool.execute({ action: 'write', section: 'plan', text: 'ship v2' });
    for (let call = 0; call < 3; call++) {
      const prepared = await session.prepare({ entries, renderNotes: false });
      expect(prepared.notices.filter((notice) => notice.type === 'notes')).toEqual([]);
      expect(prepared.system).toBe('');
    }
  });
});

import { type BatonEvent, createBaton, createEntry, type Entry } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { describeEvent } from './report.ts';

/** user, then `steps` read_file exchanges with results of `words` words each. */
function toolLoop(steps: number, words: number): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'Audit the repository.')];
  for (let s = 0; s < steps; s++) {
    const id = `c${s}`;
    entries.push(
      createEntry(entries.length, 'assistant', [
        { type: 'tool-call', id, name: 'read_file', input: { path: `f${s}.ts` } },
      ]),
      createEntry(entries.length + 1, 'tool', [
        {
          type: 'tool-result',
          callId: id,
          name: 'read_file',
          output: Array.from({ length: words }, (_, i) => `w${(i * 31 + s) % 97}`).join(' '),
        },
      ]),
    );
  }
  return entries;
}

describe('the report describes stage-completed by what it counts', () => {
  it('a summary over earlier digests reads as such, not as "0 entries"', async () => {
    const session = createBaton({ contextWindow: 6_000 }).session('s');
    const completed: Extract<BatonEvent, { type: 'stage-completed' }>[] = [];
    for (let steps = 1; steps <= 60; steps++) {
      // The agent asks every 8 steps (a steady-state compaction aims too low to take digests alone).
      if (steps % 8 === 0) session.requestCompaction();
      const prepared = await session.prepare({ entries: toolLoop(steps, 120) });
      for (const e of prepared.events) if (e.type === 'stage-completed') completed.push(e);
    }
    const overDigests = completed.find((e) => e.stage === 'summarize' && e.entriesAffected === 0);
    expect(overDigests?.syntheticAffected).toBeGreaterThan(0);
    const text = describeEvent(overDigests as BatonEvent);
    expect(text).not.toMatch(/\b0 (entries|messages)\b/);
    expect(text).toContain(`${overDigests?.syntheticAffected} earlier summar`);
    for (const e of completed) {
      const line = describeEvent(e) ?? '';
      if (e.entriesAffected > 0)
        expect(line).toContain(`${e.entriesAffected} ${e.entriesAffected === 1 ? 'message' : 'messages'}`);
      if (e.syntheticAffected > 0) expect(line).toContain(`${e.syntheticAffected} earlier summar`);
    }
  });
});

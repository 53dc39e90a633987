import { describe, expect, it } from 'vitest';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { createBaton } from './baton.ts';
import { MISSING_RESULT_TEXT, repairTranscript } from './repair.ts';

const call = (seq: number, id: string) =>
  createEntry(seq, 'assistant', [{ type: 'tool-call', id, name: 'grep', input: {} }]);
const result = (seq: number, id: string) =>
  createEntry(seq, 'tool', [{ type: 'tool-result', callId: id, name: 'grep', output: `out ${id}` }]);

describe('repairTranscript', () => {
  it('returns the very same array when pairing holds', () => {
    const entries = [
      createEntry(0, 'user', 'go'),
      call(1, 'a'),
      result(2, 'a'),
      createEntry(3, 'assistant', 'done'),
    ];
    expect(repairTranscript(entries).entries).toBe(entries);
  });

  it('leaves out a result without its call and reports it', () => {
    const entries = [createEntry(0, 'user', 'go'), result(1, 'ghost'), call(2, 'a'), result(3, 'a')];
    const repaired = repairTranscript(entries);
    expect(repaired.entries.map((e) => e.seq)).toEqual([0, 2, 3]);
    expect(repaired.orphaned.map((e) => e.seq)).toEqual([1]);
    expect(repaired.orphanResults).toBe(1);
  });

  it('answers a call left without a result once the conversation moved on, but not the running step', () => {
    const entries = [
      createEntry(0, 'user', 'go'),
      call(1, 'a'),
      createEntry(2, 'user', 'next'),
      call(3, 'b'),
    ];
    const repaired = repairTranscript(entries);
    expect(repaired.missingResults).toBe(1);
    const placeholder = repaired.entries[2] as Entry;
    expect(placeholder.role).toBe('tool');
    expect(placeholder.parts[0]).toMatchObject({
      type: 'tool-result',
      callId: 'a',
      output: MISSING_RESULT_TEXT,
      isError: true,
    });
    expect(repaired.entries.at(-1)).toBe(entries[3]);
  });

  it('keeps the matching results of a tool message that also holds a stray one', () => {
    const mixed = createEntry(2, 'tool', [
      { type: 'tool-result', callId: 'a', name: 'grep', output: 'ok' },
      { type: 'tool-result', callId: 'zzz', name: 'grep', output: 'stray' },
    ]);
    const repaired = repairTranscript([createEntry(0, 'user', 'go'), call(1, 'a'), mixed]);
    expect(repaired.entries[2]!.parts).toEqual([
      { type: 'tool-result', callId: 'a', name: 'grep', output: 'ok' },
    ]);
    expect(repaired.orphaned).toEqual([mixed]);
  });

  it('through prepare: archives the orphan, reports an event, and the projection pairs', async () => {
    const session = createBaton({ contextWindow: 100_000 }).session('s');
    const entries = [
      createEntry(0, 'user', 'go'),
      result(1, 'ghost'),
      call(2, 'a'),
      createEntry(3, 'user', 'and?'),
    ];
    const prepared = await session.prepare({ entries });
    expect(prepared.events).toContainEqual({
      type: 'transcript-repaired',
      sessionId: 's',
      orphanResults: 1,
      missingResults: 1,
      refs: [entries[1]!.key],
    });
    expect((await session.archive.get(entries[1]!.key))?.entry.parts).toEqual(entries[1]!.parts);
    expect(prepared.entries.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });
});

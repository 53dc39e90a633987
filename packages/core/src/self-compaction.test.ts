import { describe, expect, it } from 'vitest';
import { createBaton } from './baton.ts';
import type { ProbeJudge } from './self-compaction.ts';
import { atClosedUnit } from './self-compaction.ts';
import { createEntry, type Entry } from './transcript.ts';

const user = (seq: number, text: string) => createEntry(seq, 'user', text);
const answer = (seq: number, text: string) => createEntry(seq, 'assistant', text);
const call = (seq: number, id: string) =>
  createEntry(seq, 'assistant', [{ type: 'tool-call', id, name: 'read_file', input: { id } }]);
const result = (seq: number, id: string) =>
  createEntry(seq, 'tool', [{ type: 'tool-result', callId: id, name: 'read_file', output: `body of ${id}` }]);

const shapes: Array<[string, Entry[], boolean]> = [
  ['the model answered without tool calls', [user(0, 'go'), answer(1, 'done')], true],
  [
    'a new batch right after consuming the previous one',
    [user(0, 'go'), call(1, 'a'), result(2, 'a'), call(3, 'b'), result(4, 'b')],
    true,
  ],
  ['results the model has not seen yet', [user(0, 'go'), call(1, 'a'), result(2, 'a')], false],
  ['a call still awaiting its result', [user(0, 'go'), call(1, 'a')], false],
  ['no assistant message yet', [user(0, 'go')], false],
];

describe('the closed-unit gate of self-compaction probes', () => {
  for (const [name, entries, closed] of shapes) {
    it(`${closed ? 'is' : 'is not'} closed: ${name}`, () => {
      expect(atClosedUnit(entries)).toBe(closed);
    });
  }

  it('probes only at a closed unit, through Session.prepare', async () => {
    const asked: number[] = [];
    const judge: ProbeJudge = async (request) => {
      asked.push(request.entries.length);
      return { output: { decision: 'CONTINUE', criteria: [] } };
    };
    for (const [name, entries, closed] of shapes) {
      asked.length = 0;
      const session = createBaton({
        contextWindow: 16_000,
        selfCompact: { probeEvery: 1, minSteps: 0, minTokens: 0, judge },
      }).session(name);
      await session.prepare({ entries });
      expect(asked.length > 0, name).toBe(closed);
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import type { ProbeJudge } from '../contracts/host-model.ts';
import { createBaton } from '../session/baton.ts';
import { PROBE_EVIDENCE_MAX_CHARS } from '../session/probe-step.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { RUBRICS } from './rubrics.ts';
import { atClosedUnit } from './self-compaction.ts';

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

describe('probe evidence', () => {
  const history = [user(0, 'go'), call(1, 'a'), result(2, 'a'), call(3, 'b'), result(4, 'b')];
  const allYes = (evidence: (id: string) => string | undefined) => ({
    decision: 'COMPRESS',
    criteria: RUBRICS.general.criteria.map((c) => {
      const quote = evidence(c.id);
      return { id: c.id, answer: 'Y', ...(quote === undefined ? {} : { evidence: quote }) };
    }),
  });
  const probe = async (output: unknown) => {
    const events: BatonEvent[] = [];
    const session = createBaton({
      contextWindow: 16_000,
      selfCompact: { probeEvery: 1, minSteps: 0, minTokens: 0, judge: async () => ({ output }) },
      onEvent: (e) => events.push(e),
    }).session('evidence');
    await session.prepare({ entries: history });
    const decided = events.filter((e) => e.type === 'probe-decided');
    expect(decided).toHaveLength(1);
    return decided[0]!;
  };

  for (const [name, evidence] of [
    ['missing', () => undefined],
    ['empty', () => ''],
    ['blank', () => ' \n\t '],
  ] as const) {
    it(`an all-Y answer with ${name} evidence on one criterion is malformed: CONTINUE with an error`, async () => {
      const event = await probe(allYes((id) => (id === 'NOT-MID' ? evidence() : 'read b')));
      expect(event).toMatchObject({ decision: 'CONTINUE', criteria: [] });
      expect(event.error).toMatch(/NOT-MID|evidence/);
    });
  }

  it('an all-Y answer leaving a criterion out is malformed', async () => {
    const answer = allYes(() => 'read b');
    answer.criteria = answer.criteria.filter((c) => c.id !== 'WORK-DONE');
    const event = await probe(answer);
    expect(event).toMatchObject({ decision: 'CONTINUE' });
    expect(event.error).toContain('WORK-DONE');
  });

  it('the event carries each criterion’s evidence, cut to PROBE_EVIDENCE_MAX_CHARS', async () => {
    const long = `body of b ${'x'.repeat(1_000)}`;
    const event = await probe(allYes((id) => (id === 'WORK-DONE' ? long : '  read b  ')));
    expect(event.decision).toBe('COMPRESS');
    expect(event.error).toBeUndefined();
    expect(event.criteria).toEqual([
      { id: 'WORK-DONE', answer: 'Y', evidence: `${long.slice(0, PROBE_EVIDENCE_MAX_CHARS - 1)}…` },
      { id: 'NOT-MID', answer: 'Y', evidence: 'read b' },
    ]);
    expect(event.criteria[0]!.evidence).toHaveLength(PROBE_EVIDENCE_MAX_CHARS);
  });
});

import { describe, expect, it } from 'vitest';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { applyLedger, type Decision } from './ledger.ts';

const history = Array.from({ length: 6 }, (_, i) =>
  createEntry(i, i % 2 === 0 ? 'user' : 'assistant', `message ${i}`),
);
const synthetic = (key: string, seq: number, text: string): Entry => ({
  key,
  seq,
  role: 'user',
  parts: [{ type: 'text', text }],
  meta: { synthetic: 'summary' },
});

describe('applyLedger', () => {
  it('returns the history itself when there are no decisions', () => {
    expect(applyLedger(history, [])).toBe(history);
  });

  it('replaces runs and folds entries, leaving untouched entries as the same objects', () => {
    const decisions: Decision[] = [
      {
        kind: 'replace',
        stage: 's',
        keys: [history[1]!.key, history[2]!.key],
        entries: [synthetic('S1', 1, 'sum')],
      },
      { kind: 'fold', stage: 'f', key: history[4]!.key, parts: [{ type: 'text', text: 'folded' }] },
    ];
    const projection = applyLedger(history, decisions);
    expect(projection.map((e) => e.key)).toEqual([
      history[0]!.key,
      'S1',
      history[3]!.key,
      history[4]!.key,
      history[5]!.key,
    ]);
    expect(projection[0]).toBe(history[0]);
    expect(projection[3]!.parts).toEqual([{ type: 'text', text: 'folded' }]);
    expect(projection[3]!.meta?.synthetic).toBe('folded');
    // Deterministic and stable: a second application gives the same objects.
    expect(applyLedger(history, decisions)).toEqual(projection);
    expect(applyLedger(history, decisions)[3]).toBe(projection[3]);
  });

  it('lets a later summary absorb an earlier one', () => {
    const decisions: Decision[] = [
      {
        kind: 'replace',
        stage: 's',
        keys: [history[1]!.key, history[2]!.key],
        entries: [synthetic('S1', 1, 'first')],
      },
      { kind: 'replace', stage: 's', keys: ['S1', history[3]!.key], entries: [synthetic('S2', 1, 'second')] },
    ];
    expect(applyLedger(history, decisions).map((e) => e.key)).toEqual([
      history[0]!.key,
      'S2',
      history[4]!.key,
      history[5]!.key,
    ]);
  });

  it('ignores keys the history no longer has', () => {
    const decisions: Decision[] = [
      { kind: 'replace', stage: 's', keys: ['gone-1', 'gone-2'], entries: [synthetic('S1', 1, 'x')] },
      { kind: 'fold', stage: 'f', key: 'gone-3', parts: [] },
    ];
    expect(applyLedger(history, decisions)).toEqual(history);
  });
});

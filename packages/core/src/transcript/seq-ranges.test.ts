import { describe, expect, it } from 'vitest';
import { messagesHeld } from './seq-ranges.ts';
import { createEntry, type Entry } from './transcript.ts';

const standingFor = (seq: number, span: [number, number], kind: 'summary' | 'digest'): Entry => ({
  ...createEntry(seq, 'user', `[baton] ${kind}`),
  meta: { synthetic: kind, span },
});

describe('messagesHeld', () => {
  it('counts each host seq once: host entries, the ranges Baton replaced, overlaps once', () => {
    const entries = [
      standingFor(2, [2, 40], 'summary'),
      standingFor(30, [30, 45], 'digest'),
      createEntry(46, 'user', 'go on'),
    ];
    expect(messagesHeld(entries)).toBe(45);
  });

  it('does not count a placeholder Baton added for a missing result', () => {
    const missing: Entry = {
      ...createEntry(5, 'tool', [{ type: 'tool-result', callId: 'c5', name: 'bash', output: 'no result' }]),
      meta: { synthetic: 'missing-result' },
    };
    expect(messagesHeld([createEntry(5, 'assistant', 'calling'), missing])).toBe(1);
  });
});

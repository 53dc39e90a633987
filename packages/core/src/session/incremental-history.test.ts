import { describe, expect, it } from 'vitest';
import { applyLedger, type Decision } from '../ledger/ledger.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { distinctKeys } from './repair.ts';

// Per-call work that used to rebuild a structure over the whole history at every model call
// (a map of every key, a map of every evicted key): over a run of thousands of calls that was
// garbage growing with the run. These tests count the reads such a rebuild makes, so they fail
// if the work goes back to whole-history, without timing anything.

/** An entry whose key reads are counted in `reads.n`. */
function counted(seq: number, key: string, reads: { n: number }): Entry {
  const entry = createEntry(seq, seq % 2 === 0 ? 'user' : 'assistant', `message ${seq}`, key);
  const { key: own, ...rest } = entry;
  return Object.defineProperty({ ...rest } as Entry, 'key', {
    enumerable: true,
    get: () => {
      reads.n++;
      return own;
    },
  });
}

describe('distinctKeys over a growing history', () => {
  it('reads only the new entries once the history before them was checked', () => {
    const reads = { n: 0 };
    const history = Array.from({ length: 2_000 }, (_, i) => counted(i, `m${i}`, reads));
    expect(distinctKeys(history)).toBe(history);
    for (let call = 0; call < 20; call++) {
      history.push(counted(history.length, `m${history.length}`, reads));
      reads.n = 0;
      expect(distinctKeys([...history])).toHaveLength(history.length);
      // The new entry's key (checked, then kept); not the 2,000 before it.
      expect(reads.n).toBeLessThanOrEqual(4);
    }
  });

  it('renumbers a repeated key in the new entries exactly as the full pass does', () => {
    const first = createEntry(0, 'user', 'go', 'a');
    const prefix = [first, createEntry(1, 'assistant', 'ok', 'b')];
    expect(distinctKeys(prefix)).toBe(prefix);
    const grown = [...prefix, createEntry(2, 'user', 'again', 'b'), createEntry(3, 'user', 'more', 'c')];
    const keys = distinctKeys(grown).map((e) => e.key);
    expect(keys).toEqual(['a', 'b', 'b~2', 'c']);
    // The failed extension left the kept prefix as it was: 'c' is not taken for a repeat.
    const other = [...prefix, createEntry(4, 'user', 'c', 'c')];
    expect(distinctKeys(other).map((e) => e.key)).toEqual(['a', 'b', 'c']);
  });

  it('takes the full pass for a history that is not the kept one plus new entries', () => {
    const first = createEntry(0, 'user', 'go', 'x');
    const kept = [first, createEntry(1, 'assistant', 'one', 'y')];
    distinctKeys(kept);
    // The host rewrote the second message under the first one's id.
    const rewritten = [first, createEntry(1, 'assistant', 'edited', 'x')];
    expect(distinctKeys(rewritten).map((e) => e.key)).toEqual(['x', 'x~2']);
  });
});

describe('applyLedger with the same kept ledger', () => {
  it("reads the decisions' keys once per ledger, not at every call", () => {
    const history = Array.from({ length: 400 }, (_, i) =>
      createEntry(i, i % 2 ? 'assistant' : 'user', `m${i}`),
    );
    let keyReads = 0;
    const decisions: Decision[] = Array.from({ length: 100 }, (_, i) => {
      const keys = [history[2 * i + 1]!.key, history[2 * i + 2]!.key];
      const decision = {
        kind: 'replace' as const,
        stage: 'summarize',
        entries: [createEntry(2 * i + 1, 'assistant', `summary ${i}`, `s${i}`)],
      };
      return Object.defineProperty(decision, 'keys', {
        enumerable: true,
        get: () => {
          keyReads++;
          return keys;
        },
      }) as Decision;
    });
    const first = applyLedger(history, decisions);
    const afterFirst = keyReads;
    expect(afterFirst).toBeGreaterThanOrEqual(100);
    for (let call = 0; call < 10; call++) expect(applyLedger(history, decisions)).toEqual(first);
    expect(keyReads).toBe(afterFirst);
    // A commit makes a new decisions array: that one is read afresh.
    applyLedger(history, [...decisions]);
    expect(keyReads).toBeGreaterThan(afterFirst);
  });
});

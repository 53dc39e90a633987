import { describe, expect, it } from 'vitest';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { distinctKeys, repairInput, SoundHistory } from './repair.ts';
import { SessionRecord } from './session-record.ts';

// A host that reuses an id would have one message folded or archived as the other: repair gives
// every entry its own key. Over a growing history it checks only the new keys; these tests count
// key reads, so they fail if the check goes back to building a map of every key at each call.

const quiet = () => undefined;

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

describe('distinct keys over a growing history', () => {
  const record = () => new SessionRecord('s', memoryStore(), () => 0);

  it('reads only the new keys once the history before them was checked', async () => {
    const reads = { n: 0 };
    const history = Array.from({ length: 2_000 }, (_, i) => counted(i, `m${i}`, reads));
    const sound = new SoundHistory();
    expect(await repairInput(history, record(), quiet, sound)).toBe(history);
    for (let call = 0; call < 20; call++) {
      history.push(counted(history.length, `m${history.length}`, reads));
      const sent = [...history];
      reads.n = 0;
      expect(await repairInput(sent, record(), quiet, sound)).toBe(sent);
      // The new entry's key (checked, then kept); not the 2,000 before it.
      expect(reads.n).toBeLessThanOrEqual(4);
    }
  });

  it('renumbers a repeated key in the new entries exactly as the full pass does', async () => {
    const prefix = [createEntry(0, 'user', 'go', 'a'), createEntry(1, 'assistant', 'ok', 'b')];
    const sound = new SoundHistory();
    expect(await repairInput(prefix, record(), quiet, sound)).toBe(prefix);
    const grown = [...prefix, createEntry(2, 'user', 'again', 'b'), createEntry(3, 'user', 'more', 'c')];
    const keys = (await repairInput(grown, record(), quiet, sound)).map((e) => e.key);
    expect(keys).toEqual(['a', 'b', 'b~2', 'c']);
    expect(distinctKeys(grown).map((e) => e.key)).toEqual(keys);
    // What the failed extension looked at is not taken for a key of the history: 'c' is free.
    const other = [...prefix, createEntry(4, 'user', 'c', 'c')];
    expect((await repairInput(other, record(), quiet, sound)).map((e) => e.key)).toEqual(['a', 'b', 'c']);
  });

  it('takes the full pass for a history that is not the kept one plus new entries', async () => {
    const first = createEntry(0, 'user', 'go', 'x');
    const sound = new SoundHistory();
    await repairInput([first, createEntry(1, 'assistant', 'one', 'y')], record(), quiet, sound);
    // The host rewrote the second message under the first one's id.
    const rewritten = [first, createEntry(1, 'assistant', 'edited', 'x')];
    expect((await repairInput(rewritten, record(), quiet, sound)).map((e) => e.key)).toEqual(['x', 'x~2']);
  });

  it('keeps nothing of one session in another that starts with the same entry object', async () => {
    // A system prompt constant shared by every thread: each session checks its own history.
    const shared = createEntry(0, 'system', 'You are helpful.', 'sys');
    const one = new SoundHistory();
    const two = new SoundHistory();
    const first = [shared, createEntry(1, 'user', 'one', 'u1')];
    const second = [shared, createEntry(1, 'user', 'two', 'u1'), createEntry(2, 'user', 'again', 'u1')];
    expect(await repairInput(first, record(), quiet, one)).toBe(first);
    expect((await repairInput(second, record(), quiet, two)).map((e) => e.key)).toEqual([
      'sys',
      'u1',
      'u1~2',
    ]);
    const grown = [...first, createEntry(2, 'user', 'more', 'u2')];
    expect(await repairInput(grown, record(), quiet, one)).toBe(grown);
  });
});

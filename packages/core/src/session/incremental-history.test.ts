import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeptProjection } from '../ledger/kept-projection.ts';
import { applyLedger, type Decision } from '../ledger/ledger.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry, type Entry, type Part } from '../transcript/transcript.ts';
import { SeenPrefix } from '../util/seen-prefix.ts';
import { createBaton } from './baton.ts';
import { checkPrepareInput } from './entry-check.ts';
import { repairInput, SoundHistory } from './repair.ts';
import { SessionRecord } from './session-record.ts';

// Per-call work that used to rebuild a structure over the whole history at every model call
// (a map of every key, a map of every evicted key): over a run of thousands of calls that was
// garbage growing with the run. These tests count the reads such a rebuild makes, so they fail
// if the work goes back to whole-history, without timing anything.

const quiet = () => undefined;

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

/** An entry whose `parts` reads are counted in `reads.n` (every whole-history pass reads them). */
function watched(entry: Entry, reads: { n: number }): Entry {
  const { parts, ...rest } = entry;
  return Object.defineProperty({ ...rest } as Entry, 'parts', {
    enumerable: true,
    get: () => {
      reads.n++;
      return parts;
    },
  });
}

const toolCall = (seq: number, id: string) =>
  createEntry(seq, 'assistant', [{ type: 'tool-call', id, name: 'grep', input: { q: id } }]);
const toolResult = (seq: number, id: string, output = `out ${id}`) =>
  createEntry(seq, 'tool', [{ type: 'tool-result', callId: id, name: 'grep', output }]);

/** A run of user asks, tool steps and answers: `length` entries, tool pairing intact. */
function toolRun(length: number, from = 0): Entry[] {
  const entries: Entry[] = [];
  for (let seq = from; entries.length < length; seq++) {
    const shape = seq % 4;
    if (shape === 0) entries.push(createEntry(seq, 'user', `ask ${seq}`));
    else if (shape === 1) entries.push(toolCall(seq, `c${seq}`));
    else if (shape === 2) entries.push(toolResult(seq, `c${seq - 1}`));
    else entries.push(createEntry(seq, 'assistant', `answer ${seq}`));
  }
  return entries;
}

describe('the input check over a growing history', () => {
  it('checks only the new entries once the history before them passed', () => {
    const reads = { n: 0 };
    const history = toolRun(1_000).map((entry) => watched(entry, reads));
    const checked = new SeenPrefix();
    checkPrepareInput({ entries: history }, checked);
    expect(reads.n).toBeGreaterThanOrEqual(1_000);
    for (let call = 0; call < 10; call++) {
      const next = createEntry(history.length, 'user', `more ${call}`);
      history.push(watched(next, reads));
      reads.n = 0;
      checkPrepareInput({ entries: [...history] }, checked);
      expect(reads.n).toBe(1);
    }
  });

  it('still refuses a malformed new entry, and checks a history that is not the last one plus new entries in full', () => {
    const history = toolRun(20);
    const checked = new SeenPrefix();
    checkPrepareInput({ entries: history }, checked);
    const bad = { key: 'x', seq: 20, role: 'user', parts: [{ type: 'text', text: 7 }] };
    expect(() => checkPrepareInput({ entries: [...history, bad] }, checked)).toThrow(
      /entries\[20\]\.parts\[0\]\.text: expected a string/,
    );
    // A rewritten history (the host replaced its second message) is read from its first entry.
    const rewritten = [history[0], { ...history[1]!, parts: null }, ...history.slice(2)];
    expect(() => checkPrepareInput({ entries: rewritten }, checked)).toThrow(/entries\[1\]\.parts/);
  });
});

describe('repair over a growing history', () => {
  const record = () => new SessionRecord('s', memoryStore(), () => 0);

  it('reads only the new entries while the history needs no repair', async () => {
    const reads = { n: 0 };
    const history = toolRun(1_000).map((entry) => watched(entry, reads));
    const sound = new SoundHistory();
    expect(await repairInput(history, record(), quiet, sound)).toBe(history);
    for (let call = 0; call < 10; call++) {
      history.push(...toolRun(4, history.length).map((entry) => watched(entry, reads)));
      const sent = [...history];
      reads.n = 0;
      expect(await repairInput(sent, record(), quiet, sound)).toBe(sent);
      // The four new entries, each read by the unfit-step test and the pairing scan at most.
      expect(reads.n).toBeLessThanOrEqual(8);
    }
  });

  it('repairs what a new entry breaks exactly as the full pass does', async () => {
    const history = toolRun(40);
    const sound = new SoundHistory();
    await repairInput(history, record(), quiet, sound);
    const cases: Entry[][] = [
      // A result whose call is not right before it.
      [...history, toolResult(40, 'ghost')],
      // A call left unanswered once the conversation moved on.
      [...history, toolCall(40, 'open'), createEntry(41, 'user', 'next')],
      // A key the history already has.
      [...history, createEntry(40, 'user', 'again', history[0]!.key)],
      // The stored reply of an unfit step.
      [...history, createEntry(40, 'assistant', '[baton] This step was not sent to the model: too long')],
      // The running step: a call still awaiting its result is left as it is.
      [...history, toolCall(40, 'running')],
    ];
    for (const entries of cases) {
      const incremental = await repairInput(entries, record(), quiet, sound);
      const full = await repairInput(entries, record(), quiet);
      expect(incremental).toEqual(full);
    }
    // A call still open at the end of one history, answered by the next.
    const running = [...history, toolCall(40, 'late')];
    await repairInput(running, record(), quiet, sound);
    const answered = [...running, toolResult(41, 'late')];
    expect(await repairInput(answered, record(), quiet, sound)).toBe(answered);
    const stray = [...answered, toolResult(42, 'late')];
    expect(await repairInput(stray, record(), quiet, sound)).toEqual(
      await repairInput(stray, record(), quiet),
    );
    // A call still open at the end of one history, left unanswered by the next.
    const waiting = [...history, toolCall(40, 'lost')];
    expect(await repairInput(waiting, record(), quiet, sound)).toBe(waiting);
    const movedOn = [...waiting, createEntry(41, 'user', 'next')];
    const repaired = await repairInput(movedOn, record(), quiet, sound);
    expect(repaired).toHaveLength(movedOn.length + 1);
    expect(repaired).toEqual(await repairInput(movedOn, record(), quiet));
  });
});

describe('the kept projection', () => {
  /** A fold of one result and a replace of one tool group, with content hashes bound. */
  function ledgerOver(history: readonly Entry[]): Decision[] {
    const fold: Decision = {
      kind: 'fold',
      stage: 'fold-tool-results',
      key: history[2]!.key,
      parts: [{ type: 'tool-result', callId: 'c1', name: 'grep', output: '[folded]' }],
    };
    const replace: Decision = {
      kind: 'replace',
      stage: 'drop-stale-tool-traffic',
      keys: [history[5]!.key, history[6]!.key],
      entries: [createEntry(5, 'assistant', '[digest] grep c5', 'digest-5')],
    };
    return [fold, replace];
  }

  it('applies the ledger to the new entries only while the ledger stays the same', () => {
    const reads = { n: 0 };
    const history = toolRun(1_000).map((entry) => watched(entry, reads));
    const decisions = ledgerOver(history);
    const kept = new KeptProjection();
    expect(kept.apply(history, decisions)).toEqual(applyLedger(history, decisions));
    for (let call = 0; call < 10; call++) {
      history.push(...toolRun(4, history.length).map((entry) => watched(entry, reads)));
      const sent = [...history];
      reads.n = 0;
      const projection = kept.apply(sent, decisions);
      expect(reads.n).toBe(0);
      expect(projection).toEqual(applyLedger(sent, decisions));
      // Its own array: a host that edits the projection does not edit the next one.
      projection.pop();
    }
  });

  it('gives what applyLedger gives for any sequence of histories and ledgers', () => {
    // Each step: grow the history (a new result may join the last tool group, or a new
    // entry reuse a key the ledger names), rewrite it (a retry, an edit), or commit a ledger.
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('grow' as const),
        count: fc.integer({ min: 0, max: 5 }),
        shape: fc.nat(7),
      }),
      fc.record({ kind: fc.constant('edit' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('commit' as const), at: fc.nat(), span: fc.integer({ min: 1, max: 3 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        let history = toolRun(12);
        let decisions: Decision[] = [];
        const kept = new KeptProjection();
        let seq = 100;
        for (const s of steps) {
          if (s.kind === 'grow') {
            const fresh: Entry[] = [];
            for (let i = 0; i < s.count; i++) {
              const shape = (s.shape + i) % 8;
              const last = history.at(-1)!;
              if (shape === 0) fresh.push(toolResult(seq++, `joined${seq}`));
              else if (shape === 1)
                fresh.push(createEntry(seq++, 'user', 'reused', history[(seq * 7) % history.length]!.key));
              else if (shape === 2 && last.role === 'assistant') {
                const id = (
                  last.parts.find((p: Part) => p.type === 'tool-call') as { id?: string } | undefined
                )?.id;
                if (id) fresh.push(toolResult(seq++, id));
              } else fresh.push(...toolRun(2, seq++));
            }
            history = [...history, ...fresh];
          } else if (s.kind === 'edit') {
            const at = s.at % history.length;
            history = history.map((entry, i) =>
              i === at ? createEntry(entry.seq, entry.role, `edited ${seq++}`, entry.key) : entry,
            );
          } else {
            const at = s.at % history.length;
            const keys = history.slice(at, at + s.span).map((e) => e.key);
            const replacement = createEntry(
              history[at]!.seq,
              'assistant',
              `summary ${seq}`,
              `summary-${seq++}`,
            );
            decisions = [...decisions, { kind: 'replace', stage: 'summarize', keys, entries: [replacement] }];
          }
          expect(kept.apply(history, decisions)).toEqual(applyLedger(history, decisions));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a session over a growing history', () => {
  it('never hands the host its own array as the projection, whichever pass it took', async () => {
    const session = createBaton({ contextWindow: 100_000 }).session('own-array');
    const history = toolRun(12);
    for (let call = 0; call < 3; call++) {
      const prepared = await session.prepare({ entries: history });
      expect(prepared.entries).not.toBe(history);
      const shown = prepared.entries.length;
      // The host goes on with its own history: what Baton returned (and measured) stays as it was.
      history.push(...toolRun(4, 100 + call * 4));
      expect(prepared.entries).toHaveLength(shown);
    }
  });

  it('reads the entries it saw before no more once they leave the prompt', async () => {
    const reads = { n: 0 };
    const session = createBaton({ contextWindow: 8_000 }).session('grow');
    const history: Entry[] = [];
    for (let call = 0; call < 200; call++) {
      history.push(...toolRun(4, history.length * 2).map((entry) => watched(entry, reads)));
      reads.n = 0;
      await session.prepare({ entries: [...history] });
    }
    // 800 entries, most of them long folded or summarized: the last call read the new ones and
    // a few of the prompt's own (20 when written), not the whole history (420 re-applying the
    // ledger to all of it, 2,400 checking and repairing all of it as well).
    expect(reads.n).toBeLessThanOrEqual(40);
  });
});

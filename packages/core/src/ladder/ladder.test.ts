import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import { defineStage } from '../contracts/stage.ts';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { continueLadder, type LadderInput, runLadder } from './ladder.ts';
import { foldToolResults, summarize, truncateOldest } from './stages/index.ts';

const filler = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `word${(i * 31 + seed) % 97}`).join(' ');

/** user, then `steps` tool exchanges with results of `resultWords` words, then a closing assistant message. */
function toolLoop(steps: number, resultWords: number): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING: audit the repository')];
  for (let s = 0; s < steps; s++) {
    const id = `c${s}`;
    entries.push(
      createEntry(entries.length, 'assistant', [
        { type: 'tool-call', id, name: 'read_file', input: { path: `f${s}.ts` } },
      ]),
    );
    entries.push(
      createEntry(entries.length, 'tool', [
        { type: 'tool-result', callId: id, name: 'read_file', output: filler(resultWords, s) },
      ]),
    );
  }
  entries.push(createEntry(entries.length, 'assistant', 'All files read.'));
  return entries;
}

const stagesOf = (events: BatonEvent[]) =>
  events.flatMap((e) => (e.type === 'stage-completed' ? [e.stage] : []));

describe('the ladder', () => {
  it('does nothing below compactAt', async () => {
    const prepared = await createBaton({ contextWindow: 100_000 })
      .session('s')
      .prepare({ entries: toolLoop(5, 100) });
    expect(prepared.outcome).toBe('ok');
    expect(prepared.events).toEqual([]);
  });

  it('stops at the first stage that reaches targetAt (folding alone suffices here)', async () => {
    const baton = createBaton({ contextWindow: 8_000, targetAt: 0.5, minCompactionGain: 0.1 });
    const prepared = await baton.session('s').prepare({ entries: toolLoop(10, 250) });
    expect(prepared.outcome).toBe('compacted');
    expect(stagesOf(prepared.events)).toEqual(['fold-tool-results']);
    expect(prepared.tokens.after).toBeLessThanOrEqual(baton.options.targetAt * baton.options.inputBudget);
    // The newest `keep` (3) results stay verbatim; older ones carry a recall ref.
    const results = prepared.entries.filter((e) => e.role === 'tool');
    expect(results.slice(-3).every((e) => e.meta?.synthetic === undefined)).toBe(true);
    const folded = results.find((e) => e.meta?.synthetic === 'folded');
    expect(JSON.stringify(folded?.parts)).toContain(`recall({ \\"ref\\": \\"${folded?.key}\\" })`);
  });

  it('emits one event per stage that changed something, with counts and no content', async () => {
    const baton = createBaton({ contextWindow: 4_000, keep: 1 });
    const prepared = await baton.session('s').prepare({ entries: toolLoop(30, 300) });
    for (const event of prepared.events) {
      expect(JSON.stringify(event)).not.toMatch(/word\d+/);
    }
    const completed = prepared.events.filter((e) => e.type === 'stage-completed');
    expect(new Set(completed.map((e) => e.stage)).size).toBe(completed.length);
    for (const e of completed)
      if (e.type === 'stage-completed') expect(e.tokensAfter).toBeLessThan(e.tokensBefore);
  });

  it('stage-completed counts the host entries and, apart, the entries Baton made that a stage took in (a summary over digests)', async () => {
    // The shape this scenario was written for: the newest four turns kept verbatim.
    const session = createBaton({
      contextWindow: 6_000,
      targetAt: 0.5,
      minCompactionGain: 0.1,
      keepRecentGroups: 4,
    }).session('s');
    let previous: Entry[] = [];
    let overDigests = 0;
    for (let steps = 1; steps <= 60; steps++) {
      // The agent asks every 8 steps (a steady-state compaction aims too low to take digests alone).
      if (steps % 8 === 0) session.requestCompaction();
      const prepared = await session.prepare({ entries: toolLoop(steps, 120) });
      const completed = prepared.events.flatMap((e) => (e.type === 'stage-completed' ? [e] : []));
      // A stage that changed the projection took something out of it, and the event says what.
      for (const e of completed) expect(e.entriesAffected + e.syntheticAffected, e.stage).toBeGreaterThan(0);
      const summary = completed.find((e) => e.stage === 'summarize');
      if (summary && summary.entriesAffected === 0) {
        overDigests++;
        expect(summary.seqRange).toBeUndefined();
        // What the host stores next: the entries Baton made before this call that are gone from
        // the projection now; every one of them was counted by the stage that took it.
        const now = new Set(prepared.entries.map((e) => e.key));
        const gone = previous.filter((e) => e.meta?.synthetic !== undefined && !now.has(e.key));
        expect(gone.length).toBeGreaterThan(0);
        expect(completed.reduce((sum, e) => sum + e.syntheticAffected, 0)).toBeGreaterThanOrEqual(
          gone.length,
        );
        expect(summary.syntheticAffected).toBeGreaterThan(0);
      }
      previous = prepared.entries;
    }
    // The run reaches summaries that evict no host entry (they read "0 entries" before).
    expect(overDigests).toBeGreaterThan(0);
  });

  it('truncate-oldest runs only above truncateAt', async () => {
    const noop = defineStage('noop', async () => ({ decisions: [] }));
    const between = createBaton({
      contextWindow: 10_000,
      compactAt: 0.5,
      targetAt: 0.2,
      truncateAt: 1,
      stages: [noop, truncateOldest()],
    });
    const mid = await between.session('s').prepare({ entries: toolLoop(12, 300) });
    expect(mid.tokens.before).toBeLessThan(between.options.inputBudget);
    expect(stagesOf(mid.events)).toEqual([]);
    const above = createBaton({
      contextWindow: 10_000,
      compactAt: 0.5,
      targetAt: 0.2,
      truncateAt: 0.5,
      stages: [noop, truncateOldest()],
    });
    const high = await above.session('s').prepare({ entries: toolLoop(12, 300) });
    expect(stagesOf(high.events)).toEqual(['truncate-oldest']);
    expect(high.entries[0]!.parts).toEqual([{ type: 'text', text: 'OPENING: audit the repository' }]);
    expect(high.entries.some((e) => e.meta?.synthetic === 'marker')).toBe(true);
  });

  it('takes per-stage options and custom stages, composed in any order', async () => {
    const seen: number[] = [];
    const spy = defineStage('spy', async (ctx) => {
      seen.push(ctx.tokens);
      return { decisions: [] };
    });
    const baton = createBaton({ contextWindow: 8_000, stages: [spy, foldToolResults({ keep: 0 }), spy] });
    const prepared = await baton.session('s').prepare({ entries: toolLoop(10, 250) });
    expect(seen.length).toBe(1); // the second spy never runs: fold reached the target
    expect(stagesOf(prepared.events)).toEqual(['fold-tool-results']);
    // keep: 0 lets the stage fold even the newest result when the target needs it.
    const all = createBaton({ contextWindow: 8_000, targetAt: 0.05, stages: [foldToolResults({ keep: 0 })] });
    const everything = await all.session('s').prepare({ entries: toolLoop(12, 250) });
    expect(
      everything.entries.filter((e) => e.role === 'tool').every((e) => e.meta?.synthetic === 'folded'),
    ).toBe(true);
    const keepTwo = createBaton({
      contextWindow: 8_000,
      targetAt: 0.05,
      stages: [foldToolResults({ keep: 2 })],
    });
    const two = await keepTwo.session('s').prepare({ entries: toolLoop(12, 250) });
    expect(two.entries.filter((e) => e.role === 'tool' && e.meta?.synthetic === undefined)).toHaveLength(2);
  });

  it('skips a stage that throws, and rejects one that breaks pairing or protected content', async () => {
    const throwing = defineStage('throwing', async () => {
      throw new Error('boom');
    });
    const breaking = defineStage('breaking', async (ctx) => ({
      decisions: [{ kind: 'replace', stage: 'breaking', keys: [ctx.entries[1]!.key], entries: [] }],
    }));
    const dropsOpening = defineStage('drops-opening', async (ctx) => ({
      decisions: [{ kind: 'replace', stage: 'drops-opening', keys: [ctx.entries[0]!.key], entries: [] }],
    }));
    const baton = createBaton({
      contextWindow: 8_000,
      stages: [throwing, breaking, dropsOpening, summarize()],
    });
    const prepared = await baton.session('s').prepare({ entries: toolLoop(12, 400) });
    const failures = prepared.events.filter((e) => e.type === 'stage-failed');
    expect(failures.map((e) => e.type === 'stage-failed' && e.stage)).toEqual([
      'throwing',
      'breaking',
      'drops-opening',
    ]);
    expect(JSON.stringify(failures[1])).toMatch(/has no call|has no result/);
    expect(JSON.stringify(failures[2])).toMatch(/protected entry/);
    expect(stagesOf(prepared.events)).toEqual(['summarize']);
  });
});

describe('a later pass of the ladder (continueLadder)', () => {
  it("starts from what the earlier pass reached, the earlier pass's notice lines counted", async () => {
    const input: LadderInput = {
      entries: toolLoop(6, 200),
      stages: [foldToolResults()],
      overhead: 100,
      target: 0,
      budget: 10_000,
      truncateLimit: 10_000,
      instruction: undefined,
      options: createBaton({ contextWindow: 8_000, keep: 1 }).options,
      pinPolicy: { pinnedTools: new Set() },
      count: (entry) => Math.ceil(JSON.stringify(entry.parts).length / 4),
      summarize: async () => 'summary',
      noticeTokens: (spans) => (spans.length === 0 ? 0 : 40 + 10 * spans.length),
      emit: () => {},
    };
    const first = await runLadder(input);
    expect(first.spans.length).toBe(5);
    // Nothing is left to fold: the later pass keeps what the first reached, notice included
    // (counted without it, each of its stages would have to beat a prompt 90 tokens too small).
    const later = await continueLadder(input, first);
    expect(later.decisions).toEqual(first.decisions);
    expect(later.tokens).toBe(first.tokens);
  });
});

import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

/** An opening request and a system prompt that together hold most of the budget, then a tool loop. */
function loopOnAFloor(steps: number): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', `Review this spec.\n${words(1_800, 1)}`)];
  for (let step = 0; step < steps; step++) {
    const id = `c${step}`;
    entries.push(
      createEntry(entries.length, 'assistant', [
        { type: 'tool-call', id, name: 'read_file', input: { path: `f${step}.ts` } },
      ]),
    );
    entries.push(
      createEntry(entries.length, 'tool', [
        { type: 'tool-result', callId: id, name: 'read_file', output: words(260, step), isError: false },
      ]),
    );
  }
  return entries;
}

async function run(minCompactionGain?: number) {
  const events: BatonEvent[] = [];
  const baton = createBaton({
    contextWindow: 16_000,
    onEvent: (event) => events.push(event),
    ...(minCompactionGain === undefined ? {} : { minCompactionGain }),
  });
  const session = baton.session('floor');
  const system = `You follow the house rules.\n${words(1_400, 7)}`;
  const history = loopOnAFloor(60);
  const prepared = [];
  // One call per step, as an agent loop makes them: the opening request, then each result.
  for (let end = 1; end <= history.length; end += 2)
    prepared.push(await session.prepare({ entries: history.slice(0, end), system }));
  return {
    prepared,
    events,
    budget: baton.options.inputBudget,
    target: baton.options.targetAt * baton.options.inputBudget,
  };
}

describe('a floor above targetAt', () => {
  it('is told once and compacted only when a compaction repays its cache write, never over the budget', async () => {
    const { prepared, events, budget, target } = await run();
    const compacted = prepared.filter((p) => p.outcome === 'compacted').length;
    for (const p of prepared) expect(p.tokens.after).toBeLessThanOrEqual(budget);
    // The floor (system prompt + opening request) is above the target: the ladder can never reach it.
    const floors = events.filter((e) => e.type === 'compaction-floor');
    expect(floors).toHaveLength(1);
    const floor = floors[0]!;
    if (floor.type !== 'compaction-floor') throw new Error('unreachable');
    expect(floor.tokens).toBeGreaterThan(target);
    expect(floor.holders.map((h) => h.what)).toEqual(
      expect.arrayContaining(['system prompt, tools and notes', 'the opening request']),
    );
    // Told once, in words, with what holds it.
    const told = prepared.filter((p) => p.notices.some((n) => n.type === 'floor'));
    expect(told).toHaveLength(1);
    expect(told[0]!.trailer).toMatch(/Compaction cannot bring your context below about [\d,]+ tokens/);
    expect(told[0]!.trailer).toContain('the opening request');
    // Measured: 14 compactions over 61 calls, about one per four calls (what the loop adds in
    // four steps is what one must free); without the gate, 19 (every call above compactAt).
    expect(compacted).toBeLessThanOrEqual(15);
    for (const p of prepared.filter((q) => q.outcome === 'compacted'))
      expect(p.tokens.before - p.tokens.after).toBeGreaterThanOrEqual(0.1 * budget - 200);
  });

  it('without the gate (minCompactionGain 0) the same loop compacts on most calls above compactAt', async () => {
    const gated = await run();
    const ungated = await run(0);
    const count = (r: Awaited<ReturnType<typeof run>>) =>
      r.prepared.filter((p) => p.outcome === 'compacted').length;
    // Ungated, every call above compactAt compacts (19 of 19 measured), each for a few hundred tokens.
    const above = ungated.prepared.filter((p) => p.tokens.before > 0.8 * ungated.budget);
    expect(above.filter((p) => p.outcome === 'compacted').length).toBe(above.length);
    expect(count(ungated)).toBeGreaterThan(count(gated));
  });
});

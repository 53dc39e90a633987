import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry, entryText } from '../transcript/transcript.ts';
import { degrade, truncateOldest } from './stages/index.ts';

const filler = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `word${(i * 31 + seed) % 97}`).join(' ');

/** An opening request, `turns` answered chat turns, then a tool call whose result (not yet seen) has `resultWords` words. */
function historyThenFreshResult(turns: number, turnWords: number, resultWords: number): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING: find why the nightly job fails')];
  for (let t = 0; t < turns; t++) {
    entries.push(createEntry(entries.length, 'user', `TURN-${t} question: ${filler(turnWords, t)}`));
    entries.push(createEntry(entries.length, 'assistant', `TURN-${t} answer: ${filler(turnWords, t + 1)}`));
  }
  entries.push(createEntry(entries.length, 'user', 'Fetch the job logs.'));
  entries.push(
    createEntry(entries.length, 'assistant', [
      { type: 'tool-call', id: 'logs', name: 'fetch_logs', input: { job: 'nightly' } },
    ]),
  );
  entries.push(
    createEntry(entries.length, 'tool', [
      { type: 'tool-result', callId: 'logs', name: 'fetch_logs', output: filler(resultWords, 7) },
    ]),
  );
  return entries;
}

const completed = (events: BatonEvent[]) =>
  events.flatMap((e) => (e.type === 'stage-completed' ? [e.stage] : []));

describe('ladder order', () => {
  it('previews a fresh result too large for the window before truncation destroys anything older', async () => {
    const baton = createBaton({ contextWindow: 8_000, stages: [truncateOldest(), degrade()] });
    const budget = baton.options.inputBudget;
    const entries = historyThenFreshResult(12, 60, 20_000);
    const prepared = await baton.session('s').prepare({ entries });
    // The history alone fits; the result alone does not: only a preview can make room.
    expect(prepared.tokens.before).toBeGreaterThan(3 * budget);
    expect(completed(prepared.events)).toEqual(['degrade']);
    expect(prepared.tokens.after).toBeLessThanOrEqual(budget);
    expect(prepared.entries.some((e) => e.meta?.synthetic === 'marker')).toBe(false);
    // Every older turn reaches the model verbatim.
    const sent = prepared.entries.map(entryText).join('\n');
    for (let t = 0; t < 12; t++) {
      expect(sent).toContain(`TURN-${t} question: ${filler(60, t)}`);
      expect(sent).toContain(`TURN-${t} answer: ${filler(60, t + 1)}`);
    }
    expect(sent).toContain('too large for the context window');
  });

  it('still truncates, and previews nothing, when dropping older turns alone makes room', async () => {
    const baton = createBaton({ contextWindow: 8_000, stages: [truncateOldest(), degrade()] });
    const budget = baton.options.inputBudget;
    // The result is a fifth of the budget; the long history is what overflows.
    const entries = historyThenFreshResult(40, 120, Math.floor(budget / 5));
    const prepared = await baton.session('s').prepare({ entries });
    expect(prepared.tokens.before).toBeGreaterThan(budget);
    expect(completed(prepared.events)).toEqual(['truncate-oldest']);
    expect(prepared.tokens.after).toBeLessThanOrEqual(budget);
    const result = prepared.entries.at(-1)!;
    expect(entryText(result)).toContain(filler(Math.floor(budget / 5), 7));
  });
});

import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import { defineStage, type StageContext } from '../contracts/stage.ts';
import { createBaton } from '../session/baton.ts';
import { hasUnconsumedResults, isProtected } from '../transcript/groups.ts';
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

/** A user's own destructive stage: above `truncateAt`, drops the oldest plain turns until the target. */
const dropOldTurns = async (ctx: StageContext) => {
  // Like truncation, only where the budget is at stake.
  if (ctx.tokens <= ctx.truncateLimit && ctx.tokens <= ctx.budget) return { decisions: [] };
  const keys: string[] = [];
  let tokens = ctx.tokens;
  for (const group of ctx.groups) {
    if (tokens <= ctx.target) break;
    if (isProtected(group) || hasUnconsumedResults(group) || group.kind === 'tool-exchange') continue;
    for (const entry of group.entries) {
      keys.push(entry.key);
      tokens -= ctx.count(entry);
    }
  }
  const removed = ctx.entries.filter((e) => keys.includes(e.key));
  if (removed.length === 0) return { decisions: [] };
  const marker = createEntry(removed[0]!.seq, 'user', `[dropped ${removed.length} old turns]`);
  return { decisions: [{ kind: 'replace' as const, stage: 'drop-old-turns', keys, entries: [marker] }] };
};

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

  it('waits for the preview before a custom stage declared destructive, as it does for truncation', async () => {
    const destructive = defineStage('drop-old-turns', dropOldTurns, { destructive: true });
    const baton = createBaton({ contextWindow: 8_000, stages: [destructive, degrade()] });
    const entries = historyThenFreshResult(12, 60, 20_000);
    const prepared = await baton.session('s').prepare({ entries });
    expect(prepared.tokens.before).toBeGreaterThan(3 * baton.options.inputBudget);
    expect(completed(prepared.events)).toEqual(['degrade']);
    const sent = prepared.entries.map(entryText).join('\n');
    expect(sent).not.toContain('[dropped');
    for (let t = 0; t < 12; t++) expect(sent).toContain(`TURN-${t} question: ${filler(60, t)}`);
  });

  it('runs an undeclared custom stage in its place: the ladder cannot know it destroys', async () => {
    const undeclared = defineStage('drop-old-turns', dropOldTurns);
    const baton = createBaton({ contextWindow: 8_000, stages: [undeclared, degrade()] });
    const prepared = await baton.session('s').prepare({ entries: historyThenFreshResult(12, 60, 20_000) });
    expect(completed(prepared.events)[0]).toBe('drop-old-turns');
  });
});

import { type BatonEvent, createBaton, createEntry, type Entry, type Part } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { text } from './support/generate.ts';

/**
 * The seed incident (Microsoft agent-framework compaction reports): a long research
 * conversation goes over budget; the stock strategy collapses tool results, then deletes the
 * oldest messages, and the user's opening request goes with them. Baton must escalate through
 * summarize before anything is deleted, and keep the opening request verbatim.
 */
const MARKER =
  'RESEARCH-BRIEF-0x5EED: compare the energy density of sodium-ion and LFP cells for grid storage';

function researchConversation(rounds: number, findingChars = 600): Entry[] {
  const entries: Entry[] = [];
  const push = (role: Entry['role'], parts: Part[] | string) =>
    entries.push(createEntry(entries.length, role, parts));
  push('system', 'You are a research assistant. Cite sources.');
  push('user', `${MARKER}. Produce a table with sources.`);
  for (let round = 0; round < rounds; round++) {
    const id = `search_${round}`;
    push('assistant', [
      { type: 'text', text: `Round ${round}: searching for the next source. ${text(round, 200)}` },
      {
        type: 'tool-call',
        id,
        name: 'web_search',
        input: { query: `sodium-ion LFP energy density ${round}` },
      },
    ]);
    push('tool', [
      { type: 'tool-result', callId: id, name: 'web_search', output: text(1000 + round, 2_500) },
    ]);
    push('assistant', `Finding ${round}: ${text(2000 + round, findingChars)}`);
    if (round % 4 === 3) push('user', `Follow-up ${round}: ${text(3000 + round, 150)}`);
  }
  return entries;
}

describe('seed incident: over-budget research conversation', () => {
  it('escalates through summarize before anything is deleted, and keeps the opening request verbatim', async () => {
    const events: BatonEvent[] = [];
    const baton = createBaton({ contextWindow: 16_000, onEvent: (e) => events.push(e) });
    const session = baton.session('research');
    const history = researchConversation(24);
    const prepared = await session.prepare({ entries: history });

    expect(prepared.tokens.before).toBeGreaterThan(baton.options.inputBudget);
    expect(prepared.outcome).toBe('compacted');
    expect(prepared.tokens.after).toBeLessThanOrEqual(baton.options.targetAt * baton.options.inputBudget);

    const stages = events.flatMap((e) => (e.type === 'stage-completed' ? [e.stage] : []));
    expect(stages).toContain('summarize');
    expect(stages).not.toContain('truncate-oldest');
    expect(stages.indexOf('summarize')).toBeGreaterThan(stages.indexOf('fold-tool-results'));

    const opening = prepared.entries.find((e) => e.role === 'user');
    expect(opening?.parts).toEqual([{ type: 'text', text: `${MARKER}. Produce a table with sources.` }]);
    const summary = prepared.entries.find((e) => e.meta?.synthetic === 'summary');
    expect(summary).toBeDefined();
    expect(prepared.entries.indexOf(summary!)).toBeGreaterThan(prepared.entries.indexOf(opening!));

    // What the summary replaced is recallable verbatim through the range it names.
    const [from, to] = summary!.meta!.span!;
    const records = await session.archive.range(from, to);
    const originals = history.filter((e) => e.seq >= from && e.seq <= to);
    for (const original of originals) {
      const record = records.find((r) => r.ref === original.key);
      expect(record?.entry.parts).toEqual(original.parts);
    }
  });

  it('only truncates when even the summary leaves it above truncateAt, and still keeps the opening request', async () => {
    const events: BatonEvent[] = [];
    // A failing summarizer forces the ladder past summarize.
    const baton = createBaton({
      contextWindow: 16_000,
      summarizer: async () => {
        throw new Error('model unavailable');
      },
      onEvent: (e) => events.push(e),
    });
    const prepared = await baton.session('research').prepare({ entries: researchConversation(40, 1_500) });
    const types = events.map((e) => (e.type === 'stage-completed' ? e.stage : e.type));
    expect(types.indexOf('summarizer-failed')).toBeGreaterThanOrEqual(0);
    expect(types.indexOf('summarizer-failed')).toBeLessThan(types.indexOf('truncate-oldest'));
    expect(prepared.entries.some((e) => e.role === 'user' && JSON.stringify(e.parts).includes(MARKER))).toBe(
      true,
    );
    // History is never replaced with the error text.
    expect(JSON.stringify(prepared.entries)).not.toContain('model unavailable');
    expect(prepared.tokens.after).toBeLessThanOrEqual(baton.options.inputBudget);
  });
});

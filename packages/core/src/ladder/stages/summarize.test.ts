import { describe, expect, it } from 'vitest';
import type { Summarizer } from '../../contracts/summarizer.ts';
import { createBaton } from '../../session/baton.ts';
import { createEntry, type Entry, entryText } from '../../transcript/transcript.ts';
import { summarize, truncateOldest } from './index.ts';

/** A tool result naming a file and a function of its own, in filler text. */
const result = (step: number, words = 120) =>
  `src/pkg_${step}/module_${step}.py:${step} def handler_${step}(): ${Array.from({ length: words }, (_, i) => `w${(i * 7 + step) % 53}`).join(' ')}`;

function addStep(history: Entry[], step: number, words?: number): void {
  const id = `c${step}`;
  history.push(
    createEntry(history.length, 'assistant', [
      { type: 'tool-call', id, name: 'grep', input: { pattern: `p${step}` } },
    ]),
    createEntry(history.length + 1, 'tool', [
      { type: 'tool-result', callId: id, name: 'grep', output: result(step, words) },
    ]),
  );
}

const stagesOf = (events: readonly { type: string; stage?: string }[]) =>
  events.flatMap((e) => (e.type === 'stage-completed' && e.stage ? [e.stage] : []));

describe('summarize', () => {
  it('condenses the digests earlier compactions left, so they never pile up to the budget', async () => {
    // Every compaction digests the tool traffic since the last one. Left out of the summary,
    // digests pile up one per compaction until they alone hold the target: then every other
    // call truncates (and rewrites the cached prompt) for a few hundred tokens.
    const baton = createBaton({ contextWindow: 6_000, keep: 1 });
    const budget = baton.options.inputBudget;
    const session = baton.session('s');
    const history: Entry[] = [createEntry(0, 'user', 'OPENING: find every handler')];
    const compactions: { step: number; after: number; digests: number; stages: string[] }[] = [];
    for (let step = 0; step < 150; step++) {
      addStep(history, step);
      const prepared = await session.prepare({ entries: history });
      if (prepared.outcome !== 'compacted') continue;
      compactions.push({
        step,
        after: prepared.tokens.after,
        digests: prepared.entries.filter((e) => e.meta?.synthetic === 'digest').length,
        stages: stagesOf(prepared.events),
      });
    }
    const late = compactions.filter((c) => c.step >= 50);
    expect(late.length).toBeGreaterThan(10);
    // Compactions stay spaced (about one in five calls here; one in two when digests pile up) ...
    expect(late.length).toBeLessThanOrEqual(24);
    for (const compaction of late) {
      // ... land well below the budget (0.95 of it when they pile up), never by dropping
      // turns, and leave a few digests (new ones append behind the cached prompt) until they
      // hold a summary's worth.
      expect(compaction.after).toBeLessThanOrEqual(0.75 * budget);
      expect(compaction.stages).not.toContain('truncate-oldest');
      expect(compaction.digests).toBeLessThanOrEqual(6);
    }
    expect(late.some((c) => c.stages.includes('summarize'))).toBe(true);
  });

  it('keeps the names the summary leaves out under it, newest first, and carries them into the next summary', async () => {
    const calls: { entries: Entry[]; priorSummary?: string }[] = [];
    const terse: Summarizer = async ({ entries, priorSummary }) => {
      calls.push({ entries, ...(priorSummary === undefined ? {} : { priorSummary }) });
      return `Searched ${entries.length} messages for handlers.`;
    };
    const baton = createBaton({
      contextWindow: 8_000,
      summarizer: terse,
      stages: [summarize({ keepRecentGroups: 2 })],
    });
    const session = baton.session('s');
    const history: Entry[] = [createEntry(0, 'user', 'OPENING: find every handler')];
    const summaries: string[] = [];
    for (let step = 0; step < 40 && summaries.length < 2; step++) {
      addStep(history, step, 200);
      const prepared = await session.prepare({ entries: history });
      const summary = prepared.entries.find((e) => e.meta?.synthetic === 'summary');
      if (prepared.outcome === 'compacted' && summary) summaries.push(entryText(summary));
    }
    expect(summaries).toHaveLength(2);
    const [first, second] = summaries.map((text) => text.split('\n'));
    // The summarizer's text, then one line of names from the span it replaced.
    expect(first![1]).toMatch(/^Searched \d+ messages/);
    const names = first!.at(-1)!;
    expect(names).toMatch(/^Names in these messages: /);
    expect(names).toContain('src/pkg_0/module_0.py');
    expect(names).toContain('handler_0');
    // Newest first: the latest summarized step's names lead.
    const summarizedSteps = calls[0]!.entries.filter((e) => e.role === 'tool').length;
    expect(names.indexOf(`handler_${summarizedSteps - 1}`)).toBeLessThan(names.indexOf('handler_0'));
    // Bounded by the summary budget (two characters of names per token).
    expect(names.length).toBeLessThanOrEqual(
      'Names in these messages: '.length + 2 * baton.options.maxSummaryTokens,
    );
    // The next summary gets the summarizer's own text as its prior, not the names line, and
    // the earlier span's names stay in sight under it.
    expect(calls[1]!.priorSummary).toBe(first![1]);
    expect(second!.at(-1)).toContain('handler_0');
  });

  it('carries the names a truncation marker listed into the summary that takes the marker', async () => {
    // A chat turn naming ten things of its own: more names than a names line holds.
    const turn = (t: number) =>
      `Turn ${t}: ${Array.from({ length: 10 }, (_, k) => `src/turn_${t}/file_${k}.py`).join(' and ')}`;
    let failing = true;
    const summaries: string[] = [];
    const terse: Summarizer = async ({ entries }) => {
      // The first compaction's summary fails, so truncation runs and leaves a marker.
      if (failing) throw new Error('summarizer down');
      summaries.push(`Talked over ${entries.length} messages.`);
      return summaries.at(-1)!;
    };
    const baton = createBaton({
      contextWindow: 8_000,
      summarizer: terse,
      stages: [summarize({ keepRecentGroups: 2 }), truncateOldest()],
    });
    const session = baton.session('s');
    const history: Entry[] = [createEntry(0, 'user', 'OPENING: plan the migration')];
    const say = (t: number) =>
      history.push(
        createEntry(history.length, 'user', turn(t)),
        createEntry(history.length + 1, 'assistant', `Noted turn ${t}.`),
      );
    for (let t = 0; t < 60; t++) say(t);
    const truncated = await session.prepare({ entries: history });
    const marker = truncated.entries.find((e) => e.meta?.synthetic === 'marker');
    expect(marker).toBeDefined();
    const listed = /names in them: (.*?); recall/.exec(entryText(marker!))![1]!.split(', ');
    expect(listed.length).toBeGreaterThan(5);
    failing = false;
    let summary: Entry | undefined;
    for (let t = 60; t < 200 && !summary; t++) {
      say(t);
      const prepared = await session.prepare({ entries: history });
      summary = prepared.entries.find((e) => e.meta?.synthetic === 'summary');
      if (summary) expect(prepared.entries.some((e) => e.meta?.synthetic === 'marker')).toBe(false);
    }
    // The marker went into the summary, and every name it listed is still in what the model reads.
    expect(summary).toBeDefined();
    const text = entryText(summary!);
    for (const name of listed) expect(text).toContain(name);
  });
});

import { createBaton, createEntry } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { filler, type ModelView, runAgentLoop } from './support/agent-loop.ts';

/**
 * The agent keeps the judgement: warned before compaction, it writes what it must keep to its
 * notes; after the eviction notice it recalls a fact from the evicted range verbatim and
 * finishes with it.
 */
const FACT = 'incident id INC-88213 traced to commit 4f1e9ab (retry storm in payments-gateway)';
const STEPS = 24;

describe('warning -> notes -> compaction -> eviction notice -> recall', () => {
  it('lets the agent checkpoint, then recall an evicted fact verbatim and continue', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('investigation');
    const seen = { warning: -1, notesWritten: -1, eviction: -1, recalled: -1 };
    let recallCall: Record<string, unknown> | undefined;
    let recalledText = '';
    let factVisibleAfterEviction: boolean | undefined;

    const model = (view: ModelView) => {
      const warning = view.notices.find((n) => n.type === 'warning');
      if (warning && seen.warning < 0) {
        seen.warning = view.step;
        return {
          calls: [
            {
              name: 'notes',
              input: {
                action: 'write',
                section: 'findings',
                text: `log search done up to step ${view.step}`,
              },
            },
          ],
        };
      }
      if (seen.warning >= 0 && seen.notesWritten < 0) seen.notesWritten = view.step;
      const eviction = view.notices.find((n) => n.type === 'eviction');
      if (eviction && seen.eviction < 0) {
        seen.eviction = view.step;
        factVisibleAfterEviction = view.visible.includes(FACT);
        // The notice names every evicted span with its exact recall call (folded results carry
        // theirs in their placeholders); take the first one.
        const placeholders = view.entries
          .flatMap((e) => e.parts)
          .map((p) => (p.type === 'tool-result' ? String(p.output) : p.type === 'text' ? p.text : ''))
          .join('\n');
        const match = /recall\((\{ "(?:ref|from)": [^)…]*\})\)/.exec(`${eviction.text}\n${placeholders}`);
        recallCall = JSON.parse(match![1]!) as Record<string, unknown>;
        return { calls: [{ name: 'recall', input: { query: 'INC-88213' } }] };
      }
      const lastResult = view.entries.at(-1)?.parts[0];
      if (
        seen.eviction >= 0 &&
        seen.recalled < 0 &&
        lastResult?.type === 'tool-result' &&
        lastResult.name === 'recall'
      ) {
        seen.recalled = view.step;
        recalledText = (lastResult.output as { content: string }).content;
      }
      const searches = view.entries
        .flatMap((e) => e.parts)
        .filter((p) => p.type === 'tool-call' && p.name === 'search_logs').length;
      if (seen.recalled >= 0 || view.step >= STEPS) {
        const fact = /incident id INC-\d+ traced to commit \w+ \([^)]*\)/.exec(recalledText)?.[0];
        return { done: `Root cause: ${fact ?? 'unknown'}` };
      }
      return { calls: [{ name: 'search_logs', input: { page: view.step, seen: searches } }] };
    };

    const result = await runAgentLoop({
      session,
      history: [createEntry(0, 'user', "Find the root cause of last night's payment failures.")],
      model,
      tools: {
        search_logs: (input) => {
          const page = (input as { page: number }).page;
          return `page ${page}\n${page === 1 ? `${FACT}\n` : ''}${filler(1_800, page)}`;
        },
      },
      maxSteps: 60,
    });

    expect(result.finished).toBe(true);
    // Warned once, before the first compaction; the notes were then in every prompt: the
    // agent's own write in its history, and from the first compaction on in the system prompt.
    const warnings = result.prepared.filter((p) => p.notices.some((n) => n.type === 'warning'));
    expect(warnings).toHaveLength(1);
    const firstCompaction = result.prepared.findIndex((p) => p.outcome === 'compacted');
    expect(seen.warning).toBeGreaterThanOrEqual(0);
    expect(seen.warning).toBeLessThan(firstCompaction);
    for (const prepared of result.prepared.slice(seen.warning + 1))
      expect(prepared.system + JSON.stringify(prepared.entries.map((e) => e.parts))).toContain(
        'log search done up to step',
      );
    for (const prepared of result.prepared.slice(firstCompaction))
      expect(prepared.system).toContain('log search done up to step');
    // The eviction notice came once, with an exact recall call, and the fact came back verbatim.
    expect(
      result.prepared.filter((p) => p.notices.some((n) => n.type === 'eviction')).length,
    ).toBeGreaterThanOrEqual(1);
    expect(recallCall).toBeDefined();
    expect(factVisibleAfterEviction).toBe(false);
    expect(recalledText).toContain(FACT);
    expect(result.final).toBe(`Root cause: ${FACT}`);
    // The recall call the notice spelled out works as written.
    const recall = session.tools.find((t) => t.name === 'recall')!;
    await expect(recall.execute(recallCall)).resolves.toMatchObject({ records: expect.any(Array) });
  });
});

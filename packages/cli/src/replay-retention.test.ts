import { createBaton, type Entry, fromOpenAIChat } from '@baton/core';
import { entryText } from '@baton/core/internals';
import { filler } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { type PolicySummary, type ReplayResult, replay } from './replay.ts';
import { summaryTable } from './replay-text.ts';
import { renderReport } from './report.ts';
import { promptText, referenceRetention } from './retention.ts';

/** Thirty names ahead of the error: more than a folded result's index of names can carry. */
const LISTING = Array.from({ length: 30 }, (_, k) => `checked src/audit/module_${k}.ts`).join('\n');

/**
 * A request, `rounds` pages read, an answer. The answer names what the first page reported
 * (E4242, src/audit/loader.ts) and what the last one did (parse_header): three references.
 */
function audit(rounds: number, pageChars: number): Entry[] {
  const page = (i: number) =>
    [
      `page ${i}`,
      ...(i === 0 ? [LISTING, 'ERROR E4242 raised by src/audit/loader.ts'] : []),
      ...(i === rounds - 1 ? ['parse_header ok'] : []),
      filler(pageChars, i),
    ].join('\n');
  return fromOpenAIChat([
    { role: 'system', content: 'You audit logs.' },
    { role: 'user', content: 'Audit all pages and name what failed.' },
    ...Array.from({ length: rounds }, (_, i) => [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function' as const, function: { name: 'read', arguments: `{"page":${i}}` } },
        ],
      },
      { role: 'tool' as const, tool_call_id: `c${i}`, content: page(i) },
    ]).flat(),
    { role: 'assistant', content: 'E4242 in src/audit/loader.ts is the only failure; parse_header is fine.' },
  ]);
}

const entries = audit(20, 1_500);
const retentionOf = (result: ReplayResult) =>
  Object.fromEntries(
    result.policies.map((p) => [
      p.key,
      { needed: p.retention.needed, inPrompt: p.retention.inPrompt, recallable: p.retention.recallable },
    ]),
  ) as Record<PolicySummary['key'], { needed: number; inPrompt: number; recallable: number }>;

describe('replay: reference retention per policy', () => {
  it('in a window that holds everything, every policy that sends the history keeps all three', async () => {
    const result = await replay(entries, { contextWindow: 128_000, pinned: [], interval: 4 });
    const retention = retentionOf(result);
    expect(retention.none).toEqual({ needed: 3, inPrompt: 3, recallable: 3 });
    expect(retention.deleteOldest).toEqual({ needed: 3, inPrompt: 3, recallable: 3 });
    expect(retention.baton).toEqual({ needed: 3, inPrompt: 3, recallable: 3 });
    // Compacting every 4 steps evicts the first page even so; its archive still has it.
    expect(retention.interval.recallable).toBe(3);
  });

  it('in 8k: the sliding window loses the first page, no compaction is refused, Baton can recall what it folded', async () => {
    const result = await replay(entries, { contextWindow: 8_000, pinned: [], interval: 4 });
    const retention = retentionOf(result);
    const none = result.policies.find((p) => p.key === 'none')!;
    expect(none.overBudget).toBeGreaterThan(0);
    // The answer's call is over the budget: the provider would refuse it, so it retains nothing.
    expect(retention.none).toEqual({ needed: 3, inPrompt: 0, recallable: 0 });
    // The window still holds the last page (parse_header), not the first (E4242, the path).
    expect(retention.deleteOldest).toEqual({ needed: 3, inPrompt: 1, recallable: 1 });
    // The fold's index of names is full before the error line: part of it is only in the archive.
    expect(retention.baton.inPrompt).toBeLessThan(3);
    expect(retention.baton).toMatchObject({ needed: 3, recallable: 3 });
    expect(retention.interval.inPrompt).toBeLessThan(3);
    expect(retention.interval).toMatchObject({ needed: 3, recallable: 3 });
    const batonTotals = result.policies.find((p) => p.key === 'baton')!.retention;
    expect(batonTotals.byDistance['11 to 50']).toEqual({
      needed: 2,
      inPrompt: batonTotals.inPrompt - 1,
      recallable: 2,
    });
    expect(batonTotals.byDistance['up to 10']).toEqual({ needed: 1, inPrompt: 1, recallable: 1 });
  });

  it('scores recall after the loop exactly as an archive read before every call would', async () => {
    const result = await replay(entries, { contextWindow: 8_000, pinned: [], interval: 4 });
    const session = createBaton({ contextWindow: 8_000, pinnedTools: [] }).session('check');
    const retention = referenceRetention(entries);
    for (const { at } of result.steps) {
      const prepared = await session.prepare({ entries: entries.slice(0, at) });
      const archived = (await session.archive.range(0, Number.MAX_SAFE_INTEGER))
        .map((record) => entryText(record.entry))
        .join('\n');
      retention.record(at, promptText(prepared), {
        overBudget: prepared.tokens.after > result.budget,
        recallable: (identifier) => archived.includes(identifier),
      });
    }
    expect(result.policies.find((p) => p.key === 'baton')!.retention).toEqual(retention.totals);
  });

  it('shows both shares per policy in the text summary and the report, with the count of references', async () => {
    const result = await replay(entries, { contextWindow: 8_000, pinned: [], interval: 4 });
    const table = summaryTable(result);
    expect(table).toMatch(/^policy .*opening lost\s+refs in prompt\s+or recallable\s+tokens billed/m);
    expect(table).toMatch(/^no compaction(?:\s+[\d,]+){4}\s+0\.0%\s+0\.0%\s/m);
    expect(table).toMatch(/^delete oldest(?:\s+[\d,]+){4}\s+33\.3%\s+33\.3%\s/m);
    expect(table).toMatch(/^Baton(?:\s+[\d,]+){4}\s+[\d.]+%\s+100\.0%\s/m);
    const html = renderReport(result, { file: 'audit.json', format: 'OpenAI', settings: 'window 8,000' });
    expect(html).toContain('<th>references in the prompt</th><th>in the prompt or recallable</th>');
    expect(html).toMatch(/<td>delete oldest<\/td>(?:<td>[\d,]+<\/td>){4}<td>33\.3%<\/td><td>33\.3%<\/td>/);
    expect(html).toContain('References: 3 times, the agent used an identifier');
  });
});

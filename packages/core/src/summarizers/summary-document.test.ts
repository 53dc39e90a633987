import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../tokens/token-counter.ts';
import { gptTokenizer } from '../tokens/tokenizer.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { extractiveSummarizer } from './extractive.ts';
import { compressLine, DOCUMENT_HEADING, parseSummary } from './summary-document.ts';

const counter = new TokenCounter(gptTokenizer(), 0);
const countTokens = (text: string) => counter.text(text);

/** Span `n` of a chat: ten turns, one of them a decision with a value found nowhere else. */
function span(n: number): Entry[] {
  const entries: Entry[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const seq = n * 20 + turn * 2;
    const decision = turn === 3 ? ` Decision: we keep retention at ${n * 7 + 3} days for bucket B-${n}.` : '';
    entries.push(
      createEntry(seq, 'user', `Span ${n} turn ${turn}: the weekly sync ran long again.${decision}`),
    );
    entries.push(createEntry(seq + 1, 'assistant', `Understood, noted for span ${n} turn ${turn}.`));
  }
  return entries;
}

describe('the extractive summary document', () => {
  it('extends one document over 30 compactions: bounded, no nesting, every span keeps a line, decisions outlive chatter', async () => {
    const summarize = extractiveSummarizer();
    let summary: string | undefined;
    for (let n = 0; n < 30; n++) {
      summary = await summarize({
        entries: span(n),
        maxTokens: 600,
        countTokens,
        ...(summary ? { priorSummary: summary } : {}),
      });
      expect(countTokens(summary)).toBeLessThanOrEqual(600);
    }
    const text = summary!;
    expect(text.split('\n')[0]).toBe(DOCUMENT_HEADING);
    expect(text.match(new RegExp(DOCUMENT_HEADING.replace(/[()]/g, '\\$&'), 'g'))).toHaveLength(1);
    // Sections tile the summarized history: contiguous, oldest first, from the first span to the last.
    const ranges = parseSummary(text).map((s) => s.range!);
    expect(ranges[0]!.from).toBe(0);
    expect(ranges.at(-1)!.to).toBe(29 * 20 + 19);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.from).toBeGreaterThan(ranges[i - 1]!.to);
    // Every third of the history has a decision still in view; span 0's small talk is gone first.
    const kept = Array.from({ length: 30 }, (_, n) => text.includes(`B-${n}.`) || text.includes(`B-${n} `));
    for (let third = 0; third < 3; third++) expect(kept.slice(third * 10, third * 10 + 10)).toContain(true);
    expect(text).toContain(`retention at 3 days for bucket B-0`);
    expect(text).not.toContain('noted for span 0 turn 5');
  });

  it('keeps a summary it did not write (a model summary, an older format) as its earliest section', async () => {
    const prior = 'Earlier: the user chose plan P-7 on 2026-03-01.\nSome other remark.';
    const text = await extractiveSummarizer()({
      entries: span(1),
      priorSummary: prior,
      maxTokens: 400,
      countTokens,
    });
    const sections = parseSummary(text);
    expect(sections[0]!.range).toBeUndefined();
    expect(text).toContain('## earlier\n- Earlier: the user chose plan P-7 on 2026-03-01.');
    expect(sections[1]!.range).toEqual({ from: 20, to: 39 });
  });

  it("fits exactly with a counter that adds framing per call, as Baton's does", async () => {
    const framed = (text: string) => counter.text(text) + 4;
    let summary: string | undefined;
    for (let n = 0; n < 8; n++)
      summary = await extractiveSummarizer()({
        entries: span(n),
        maxTokens: 300,
        countTokens: framed,
        ...(summary ? { priorSummary: summary } : {}),
      });
    expect(framed(summary!)).toBeLessThanOrEqual(300);
    // Framing charged once, not per line: the bound is used, not left a third empty.
    expect(framed(summary!)).toBeGreaterThan(240);
  });

  it('keeps lines spread over an old section it has to cut, not its first few', async () => {
    const prior = [
      DOCUMENT_HEADING,
      '## seq 0-99',
      ...Array.from({ length: 20 }, (_, k) => `- User: routine check number ${k} passed`),
    ].join('\n');
    const text = await extractiveSummarizer()({
      entries: span(5),
      priorSummary: prior,
      maxTokens: 160,
      countTokens,
    });
    const old = parseSummary(text)[0]!;
    const kept = old.lines.map((line) => Number(/number (\d+)/.exec(line.text)?.[1]));
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.length).toBeLessThan(20);
    expect(Math.max(...kept) - Math.min(...kept)).toBeGreaterThanOrEqual(10);
  });

  it('compresses a line to its most salient sentences', () => {
    const line =
      '- User: The call ran long and the agenda slipped again. Decision D-9: billing uses postgres-v9 from 2027-01-15 on. Thanks all.';
    expect(compressLine(line, 80)).toBe(
      '- User: … Decision D-9: billing uses postgres-v9 from 2027-01-15 on.',
    );
    expect(compressLine(line, 500)).toBe(line);
  });
});

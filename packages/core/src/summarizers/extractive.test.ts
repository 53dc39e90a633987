import { describe, expect, it } from 'vitest';
import { readFileStep } from '../controller/tool-loop.fixtures.ts';
import { createBaton } from '../index.ts';
import { createEntry, type Entry, entryText, type SyntheticKind } from '../transcript/transcript.ts';
import { extractiveSummarizer } from './extractive.ts';
import { DOCUMENT_HEADING, NAMES_PREFIX } from './summary-document.ts';

/** An entry as a ladder stage writes it: Baton's text, marked synthetic. */
const written = (seq: number, kind: SyntheticKind, text: string): Entry => ({
  ...createEntry(seq, 'user', text),
  meta: { synthetic: kind, span: [seq, seq + 9] },
});

/** Every summary Baton sent over a long tool loop, as the model read it. */
async function summariesOfLongLoop(): Promise<string[]> {
  const baton = createBaton({ contextWindow: 6_000, reserveOutput: 500 });
  const session = baton.session('long-loop');
  const entries: Entry[] = [createEntry(0, 'user', 'Fix the flaky parser test in src/parser.ts.')];
  const summaries = new Set<string>();
  for (let step = 0; step < 240; step++) {
    readFileStep(entries, step, 40 + (step % 7) * 30);
    if (step % 5 === 4)
      entries.push(createEntry(entries.length, 'assistant', `Checked file${step}.ts: fine.`));
    const prepared = await session.prepare({ entries: [...entries] });
    for (const entry of prepared.entries)
      if (entry.meta?.synthetic === 'summary') summaries.add(entryText(entry));
  }
  return [...summaries];
}

describe('the extractive summary of a span Baton compacted before', () => {
  it("takes in digests, markers and earlier summaries by what they hold, not their headings as the user's words", async () => {
    const summaries = await summariesOfLongLoop();
    expect(summaries.length).toBeGreaterThan(3);
    const lines = summaries.flatMap((summary) => summary.split('\n').slice(1));
    // The summaries took in digests and summaries of earlier compactions and carried their calls on.
    expect(lines.filter((line) => line.startsWith('- Called read_file')).length).toBeGreaterThan(20);
    expect(lines.filter((line) => /^- \w+: \[baton\]/.test(line))).toEqual([]);
  });
});

describe('the extractive summarizer', () => {
  it("keeps an earlier summary's lines, a digest's and a marker's none, and the user's own words", async () => {
    const earlier = written(
      3,
      'summary',
      [
        '[baton] Summary of earlier conversation (seq 3-12, 6 messages; recall({ "from": 3, "to": 12 }) returns them verbatim):',
        DOCUMENT_HEADING,
        '## seq 3-12',
        '- Called grep({"pattern":"parseDate"}) -> ok, 40 chars: src/date.ts:12',
        '- Assistant: parseDate drops the time zone.',
        `${NAMES_PREFIX}src/date.ts, parseDate`,
      ].join('\n'),
    );
    const digest = written(
      13,
      'digest',
      '[baton] Earlier tool calls (seq 13-20) condensed to one line each; recall({ "from": 13, "to": 20 }) returns them verbatim.\n- read({"path":"a.ts"}) -> ok, 9 chars: export {}',
    );
    const marker = written(21, 'marker', '[baton] 4 earlier messages dropped; names in them: b.ts');
    const summary = await extractiveSummarizer()({
      entries: [earlier, digest, marker, createEntry(30, 'user', 'Now fix the time zone.')],
      maxTokens: 400,
    });
    expect(summary.split('\n').slice(1)).toEqual([
      '## seq 3-30',
      '- Called grep({"pattern":"parseDate"}) -> ok, 40 chars: src/date.ts:12',
      '- Assistant: parseDate drops the time zone.',
      '- User: Now fix the time zone.',
    ]);
  });
});

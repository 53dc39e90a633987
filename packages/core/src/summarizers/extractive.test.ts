import { describe, expect, it } from 'vitest';
import { readFileStep } from '../controller/tool-loop.fixtures.ts';
import { createBaton } from '../index.ts';
import { foldedResultText } from '../transcript/folded-result.ts';
import { createEntry, type Entry, entryText, type SyntheticKind } from '../transcript/transcript.ts';
import { extractiveSummarizer } from './extractive.ts';
import { DOCUMENT_HEADING, NAMES_PREFIX } from './summary-document.ts';

/** An entry as a ladder stage writes it: Baton's text, marked synthetic, standing for `span`. */
const written = (span: [number, number], kind: SyntheticKind, text: string): Entry => ({
  ...createEntry(span[0], 'user', text),
  meta: { synthetic: kind, span },
});

const DIGEST = [
  '[baton] Earlier tool calls (seq 13-20) condensed to one line each; recall({ "from": 13, "to": 20 }) returns them verbatim.',
  '- read({"path":"a.ts"}) -> ok, 9 chars: export {} (names: a.ts)',
].join('\n');

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
    // Each heading counts the host messages its range holds, not the entries the span held.
    for (const summary of summaries) {
      const heading = /\(seq (\d+)-(\d+), (\d+) messages;/.exec(summary);
      expect(heading).not.toBeNull();
      const [, from, to, count] = heading!.map(Number);
      expect(count).toBe(to! - from! + 1);
    }
    const lines = summaries.flatMap((summary) => summary.split('\n').slice(1));
    // The summaries kept calls of every stretch, over compactions that took in earlier ones.
    expect(lines.filter((line) => line.startsWith('- Called read_file')).length).toBeGreaterThan(20);
    // No line repeats Baton's own wording: a heading read as the user's words, a folded result's line.
    expect(lines.filter((line) => line.includes('[baton]'))).toEqual([]);
  });
});

describe('the extractive summarizer', () => {
  it("keeps an earlier summary's lines, a digest's and a marker's none, and the user's own words", async () => {
    const earlier = written(
      [3, 12],
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
    const digest = written([13, 20], 'digest', DIGEST);
    const marker = written(
      [21, 24],
      'marker',
      '[baton] 4 earlier messages (seq 21-24) were removed to fit the context window; names in them: b.ts; recall({ "from": 21, "to": 24 }) returns them verbatim.',
    );
    const summary = await extractiveSummarizer()({
      entries: [earlier, digest, marker, createEntry(25, 'user', 'Now fix the time zone.')],
      maxTokens: 400,
    });
    expect(summary.split('\n').slice(1)).toEqual([
      '## seq 3-25',
      '- Called grep({"pattern":"parseDate"}) -> ok, 40 chars: src/date.ts:12',
      '- Assistant: parseDate drops the time zone.',
      '- User: Now fix the time zone.',
    ]);
  });
  it("keeps one line for a span of digests alone: the tools they called, to the end of the digest's range", async () => {
    const digest = [
      DIGEST,
      '- read({"path":"b.ts"}) -> ok, 9 chars: export {}',
      '- bash({"command":"npm test"}) -> error, 40 chars: FAIL (names: a.test.ts)',
    ].join('\n');
    const summary = await extractiveSummarizer()({
      entries: [written([13, 20], 'digest', digest)],
      maxTokens: 400,
    });
    expect(summary.split('\n').slice(1)).toEqual(['## seq 13-20', '- Called read x2, bash']);
  });
});

describe('a summary line of a folded result', () => {
  it('reports the result the placeholder stands for: its size and first line', async () => {
    const result = `FILE9 export function parseDate(input: string) {\n${'  return new Date(input);\n'.repeat(30)}}`;
    const call = createEntry(1, 'assistant', [
      { type: 'tool-call', id: 'c9', name: 'read_file', input: { path: 'src/date.ts' } },
    ]);
    const folded: Entry = {
      ...createEntry(2, 'tool', [
        {
          type: 'tool-result',
          callId: 'c9',
          name: 'read_file',
          output: foldedResultText({
            name: 'read_file',
            text: result,
            isError: false,
            media: 0,
            recallHint: 'recall({ "ref": "c9" })',
          }),
        },
      ]),
      meta: { synthetic: 'folded' },
    };
    const summary = await extractiveSummarizer()({ entries: [call, folded], maxTokens: 200 });
    expect(summary.split('\n').at(-1)).toBe(
      `- Called read_file({"path":"src/date.ts"}) -> ok, ${result.length} chars: FILE9 export function parseDate(input: string) {`,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { filler, readFileStep } from '../controller/tool-loop.fixtures.ts';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { compactionNotices, evictionNotice, warningNotice } from './notices.ts';

describe('warning notice', () => {
  it('states the tokens left until compaction: compactAt × budget − tokens, never below 0', () => {
    // 0.8 × 12,000 = 9,600 tokens at which compaction starts.
    for (const [tokens, left] of [
      [7_700, '1,900'],
      [9_599, '1'],
      [9_600, '0'],
      [11_000, '0'],
    ] as const) {
      const notice = warningNotice(tokens, 12_000, 0.8 * 12_000);
      expect(notice.text).toContain(`compaction starts in about ${left} tokens`);
      expect(notice.text).toContain(`(${tokens.toLocaleString('en-US')} of 12,000 tokens)`);
      expect(notice.facts).toMatchObject({ kind: 'warning', tokensLeft: Number(left.replace(',', '')) });
    }
  });
});

describe('the warning in a prompt resting near the budget', () => {
  it('waits for a call with room for it rather than push that call past the budget (unfit)', async () => {
    // The system prompt holds most of the budget, so compaction rests on a floor high above
    // its target; after the first compaction each step reads a large file: the prompt
    // regrows to just under the budget while a compaction is not worth its cache write yet.
    const baton = createBaton({
      contextWindow: 5_000,
      warnAt: 0.9,
      compactAt: 0.95,
      targetAt: 0.8,
      truncateAt: 1,
    });
    const budget = baton.options.inputBudget as number;
    const session = baton.session('near-budget');
    const system = `House rules.\n${filler(1_200, 3)}`;
    const history: Entry[] = [createEntry(0, 'user', 'OPENING: audit the repository')];
    let compactedOnce = false;
    let warnings = 0;
    for (let s = 0; s < 30; s++) {
      readFileStep(history, s, compactedOnce ? 250 : 60);
      const prepared = await session.prepare({ entries: history, system });
      expect(prepared.outcome).not.toBe('unfit');
      expect(prepared.tokens.after).toBeLessThanOrEqual(budget);
      if (prepared.notices.some((n) => n.type === 'warning')) warnings++;
      compactedOnce ||= prepared.outcome === 'compacted';
    }
    // Waiting is not forgetting: the warning was told where it fitted.
    expect(warnings).toBeGreaterThan(0);
  });
});

describe('compaction notices', () => {
  const spans = [{ stage: 'fold-tool-results', from: 3, to: 3, entries: [createEntry(3, 'user', 'old')] }];

  it('states what was freed, and never a negative number', () => {
    const [freed] = compactionNotices(spans, 1_234, 10_000);
    expect(freed?.text).toContain('1,234 tokens freed');
    for (const net of [0, -1, -5]) {
      const [notice] = compactionNotices(spans, net, 10_000);
      expect(notice?.text).toContain('no net tokens freed');
      expect(notice?.text).not.toMatch(/-\d+ tokens/);
    }
  });

  it('gives folds one line (their placeholders carry the refs) and every other span a line with its recall', () => {
    const result = (seq: number, name: string) =>
      createEntry(seq, 'tool', [
        { type: 'tool-result', callId: `c${seq}`, name, output: 'x'.repeat(500), isError: false },
      ]);
    const folds = [4, 6, 8].map((seq) => ({
      stage: 'fold-tool-results',
      from: seq,
      to: seq,
      entries: [result(seq, seq === 8 ? 'grep' : 'read_file')],
    }));
    const dropped = {
      stage: 'drop-stale-tool-traffic',
      from: 10,
      to: 11,
      entries: [createEntry(10, 'user', 'a'), createEntry(11, 'user', 'b')],
    };
    const [notice] = compactionNotices([...folds, dropped], 900, 10_000);
    const lines = notice!.text.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '- seq 4-8 (fold-tool-results, 3 tool results): read_file ×2, grep; each is now a one-line placeholder in place, with its recall ref',
    );
    expect(lines[1]).toContain('seq 10-11 (drop-stale-tool-traffic, 2 messages)');
    expect(lines[1]).toContain('recall({ "from": 10, "to": 11 })');
  });

  it("tells a result folded, then summarized in the same compaction, on the summary's line only", () => {
    const call = (seq: number) =>
      createEntry(seq, 'assistant', [
        { type: 'tool-call', id: `c${seq}`, name: 'read_file', input: { path: `f${seq}.ts` } },
      ]);
    const result = (seq: number) =>
      createEntry(seq, 'tool', [
        { type: 'tool-result', callId: `c${seq - 1}`, name: 'read_file', output: 'x' },
      ]);
    const folds = [2, 4, 6].map((seq) => ({
      stage: 'fold-tool-results',
      from: seq,
      to: seq,
      entries: [result(seq)],
    }));
    // The summary took in the calls at 1 and 3 and the placeholders of the results at 2 and 4.
    const summarized = {
      stage: 'summarize',
      from: 1,
      to: 3,
      entries: [call(1), call(3)],
      absorbed: [...folds[0]!.entries, ...folds[1]!.entries],
    };
    const [notice] = compactionNotices([...folds, summarized], 900, 10_000);
    const lines = notice!.text.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toEqual([
      '- seq 6 (fold-tool-results, 1 tool result): read_file; each is now a one-line placeholder in place, with its recall ref',
      expect.stringMatching(
        /^- seq 1-4 \(summarize, 4 messages\): read_file\(.*f1\.ts.*\), read_file\(.*f3\.ts.*\) -> recall\(\{ "from": 1, "to": 4 \}\)$/,
      ),
    ]);
    expect(notice!.facts).toMatchObject({
      spans: [
        { stage: 'fold-tool-results', from: 6, to: 6, messages: 1 },
        { stage: 'summarize', from: 1, to: 4, messages: 4 },
      ],
    });
  });
});

describe('the eviction index', () => {
  it("counts a span's host messages as the summary heading does: a digest stands for every message it replaced", () => {
    // seq 2-10 had become one digest; the summary of seq 2-15 takes it in with seq 11-15.
    const digest: Entry = {
      ...createEntry(2, 'user', '[baton] Earlier tool calls (seq 2-10) condensed: read x4'),
      meta: { synthetic: 'digest', span: [2, 10] },
    };
    const rest = [11, 12, 13, 14, 15].map((seq) =>
      createEntry(seq, seq % 2 ? 'assistant' : 'user', `step ${seq}`),
    );
    const notice = evictionNotice(
      [{ stage: 'summarize', from: 2, to: 15, entries: [digest, ...rest] }],
      1_000,
    );
    expect(notice.text).toContain('- seq 2-15 (summarize, 14 messages)');
    expect(notice.facts).toMatchObject({ spans: [{ stage: 'summarize', from: 2, to: 15, messages: 14 }] });
  });
});

import { describe, expect, it } from 'vitest';
import type { SummarizerInput } from '../contracts/summarizer.ts';
import { createBaton } from '../session/baton.ts';
import { TokenCounter } from '../tokens/token-counter.ts';
import { gptTokenizer } from '../tokens/tokenizer.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { boundedSummarize } from './bounded.ts';
import { extractiveSummarizer } from './extractive.ts';

const counter = new TokenCounter(gptTokenizer(), 0);
const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 13 + seed) % 101}`).join(' ');
const span = (n: number, size: number): Entry[] =>
  Array.from({ length: n }, (_, i) => createEntry(i, i % 2 ? 'assistant' : 'user', words(size, i)));

describe('boundedSummarize', () => {
  it('never hands the summarizer more than maxInputTokens with the running summary; each chunk extends the last', async () => {
    const inputs: SummarizerInput[] = [];
    const outputs: string[] = [];
    const summarizer = async (input: SummarizerInput) => {
      inputs.push(input);
      outputs.push(words(100, inputs.length));
      return outputs.at(-1)!;
    };
    const deps = {
      summarizer,
      countEntry: (e: Entry) => counter.count(e),
      countText: (t: string) => counter.text(t),
      maxInputTokens: 1_000,
      timeoutMs: 60_000,
      maxTokens: 300,
      memo: new Map<string, string>(),
    };
    const summary = await boundedSummarize(
      deps,
      [...span(20, 300), createEntry(99, 'user', words(5_000, 1))],
      'keep the paths',
      'PRIOR',
    );
    expect(inputs.length).toBeGreaterThan(8);
    inputs.forEach((input, index) => {
      const entryTokens = input.entries.reduce((sum, e) => sum + counter.count(e), 0);
      expect(entryTokens + counter.text(input.priorSummary ?? '')).toBeLessThanOrEqual(1_000);
      expect(input.instruction).toBe('keep the paths');
      // One document: the first chunk extends the span's prior summary, every later chunk the one before.
      expect(input.priorSummary).toBe(index === 0 ? 'PRIOR' : outputs[index - 1]);
      expect(input.countTokens?.('one two three')).toBe(counter.text('one two three'));
    });
    expect(summary).toBe(outputs.at(-1));
    expect(deps.countText(summary)).toBeLessThanOrEqual(300);
  });

  it('memoizes by span content and instruction: the same span is summarized once', async () => {
    let calls = 0;
    const deps = {
      summarizer: async () => {
        calls++;
        return 'summary';
      },
      countEntry: (e: Entry) => counter.count(e),
      countText: (t: string) => counter.text(t),
      maxInputTokens: 10_000,
      timeoutMs: 60_000,
      maxTokens: 100,
      memo: new Map<string, string>(),
    };
    await boundedSummarize(deps, span(4, 50));
    await boundedSummarize(deps, structuredClone(span(4, 50)));
    expect(calls).toBe(1);
    await boundedSummarize(deps, span(4, 50), 'other instruction');
    expect(calls).toBe(2);
  });

  it('aborts a summarizer call past timeoutMs and rejects, so a hung model cannot hang the step', async () => {
    let aborted = false;
    const deps = {
      summarizer: ({ signal }: { signal?: AbortSignal }) =>
        new Promise<string>(() => {
          signal?.addEventListener('abort', () => {
            aborted = true;
          });
        }),
      countEntry: (e: Entry) => counter.count(e),
      countText: (t: string) => counter.text(t),
      maxInputTokens: 10_000,
      timeoutMs: 20,
      maxTokens: 100,
      memo: new Map<string, string>(),
    };
    await expect(boundedSummarize(deps, span(2, 10))).rejects.toThrow(/the summarizer timed out after 20 ms/);
    expect(aborted).toBe(true);
  });

  it('treats an empty answer as a failure', async () => {
    const deps = {
      summarizer: async () => '  ',
      countEntry: (e: Entry) => counter.count(e),
      countText: (t: string) => counter.text(t),
      maxInputTokens: 10_000,
      timeoutMs: 60_000,
      maxTokens: 100,
      memo: new Map<string, string>(),
    };
    await expect(boundedSummarize(deps, span(2, 10))).rejects.toThrow(/no text/);
  });

  it('across sessions of one Baton, an identical span is summarized once', async () => {
    let calls = 0;
    const baton = createBaton({
      contextWindow: 6_000,
      summarizer: async () => {
        calls++;
        return 'short summary';
      },
      stages: undefined,
    });
    const history = [
      createEntry(0, 'user', 'OPENING'),
      ...span(30, 120).map((e, i) => ({ ...e, seq: i + 1, key: `k${i}` })),
      createEntry(31, 'user', 'now'),
    ];
    await baton.session('a').prepare({ entries: history });
    const first = calls;
    expect(first).toBeGreaterThan(0);
    await baton.session('b').prepare({ entries: history });
    expect(calls).toBe(first);
  });
});

describe('extractiveSummarizer', () => {
  it('keeps user requests, tool calls with one-line results and the latest conclusions', async () => {
    const entries: Entry[] = [
      createEntry(1, 'user', 'Please fix the parser bug in src/parse.ts'),
      createEntry(2, 'assistant', [
        { type: 'text', text: 'Reading the file.' },
        { type: 'tool-call', id: 'a', name: 'read_file', input: { path: 'src/parse.ts' } },
      ]),
      createEntry(3, 'tool', [
        {
          type: 'tool-result',
          callId: 'a',
          name: 'read_file',
          output: 'export function parse() {\n  return 1;\n}',
        },
      ]),
      createEntry(4, 'assistant', 'Conclusion: the bug is an off-by-one in parse().'),
    ];
    const text = await extractiveSummarizer()({ entries, maxTokens: 500 });
    expect(text).toContain('User: Please fix the parser bug in src/parse.ts');
    expect(text).toContain('Called read_file({"path":"src/parse.ts"}) -> ok');
    expect(text).toContain('export function parse() {');
    expect(text).toContain('Conclusion: the bug is an off-by-one');
  });

  it('fits maxTokens by dropping low-weight lines, preferring lines that match the instruction', async () => {
    const entries = Array.from({ length: 60 }, (_, i) =>
      createEntry(
        i,
        'assistant',
        i === 5 ? 'The deploy token lives in vault path secret/ci' : `Step ${i}: ${words(30, i)}`,
      ),
    );
    const text = await extractiveSummarizer()({
      entries,
      maxTokens: 200,
      instruction: 'remember the vault path',
      countTokens: (t) => counter.text(t),
    });
    expect(counter.text(text)).toBeLessThanOrEqual(200);
    expect(text).toContain('vault path secret/ci');
    expect(text.split('\n').filter((line) => line.startsWith('- ')).length).toBeLessThan(60);
  });
});

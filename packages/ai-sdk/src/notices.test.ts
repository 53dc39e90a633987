import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { shardDump } from '@baton/test-support/incidents.ts';
import { expectedTokensLeft, readNotices } from '@baton/testing';
import { contextLengthError, filler, scriptedModel, trailerOf } from '@baton/testing/ai-sdk';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton } from './index.ts';

// 16,000 − 4,000 reserved for output: the input budget every figure is checked against.
// The thresholds this scenario was written for: its first eviction folds only (at targetAt 0.3 the
// same compaction goes on to condense the folded results into a digest).
const WINDOW = { contextWindow: 16_000, reserveOutput: 4_000, targetAt: 0.5, minCompactionGain: 0.1 };
const BUDGET = 12_000;

const fileText = (path: string) => `${path}\n${filler(2_400, path.length)}`;
const readFile = tool({
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fileText(path),
});

/** The outputs of the tool results a prompt carries, in order. */
function resultOutputs(prompt: LanguageModelV4Prompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result' && part.output.type === 'text' ? [part.output.value] : [],
        )
      : [],
  );
}

describe('notices in the prompt generateText sends', () => {
  it('warns once per episode with the tokens left by the budget; the eviction notice indexes what went and recall brings it back', async () => {
    const session = createBaton(WINDOW).session('warn-evict');
    let recallAsked: { from: number; to: number } | undefined;
    const { model, prompts } = scriptedModel(({ step, trailer }) => {
      const line = readNotices(trailer).eviction?.lines[0];
      if (!recallAsked && line) {
        recallAsked = { from: line.from, to: line.to };
        return { calls: [{ name: 'recall', input: recallAsked }] };
      }
      if (step >= 40) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `src/file_${step}.ts` } }] };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: { read_file: readFile, ...session.tools },
      stopWhen: stepCountIs(60),
      prompt: 'Read the files.',
    });
    const notices = prompts.map((prompt) => readNotices(trailerOf(prompt)));

    // The warning: once in every episode (between two evictions), with its figures right.
    const firstEviction = notices.findIndex((n) => n.eviction);
    expect(firstEviction).toBeGreaterThan(0);
    const warnings = notices.flatMap((n, i) => (n.warning ? [{ i, ...n.warning }] : []));
    expect(warnings.filter((w) => w.i < firstEviction)).toHaveLength(1);
    for (const warning of warnings) {
      expect(warning.budget).toBe(BUDGET);
      expect(warning.tokensLeft).toBe(expectedTokensLeft(warning.tokens, BUDGET));
      expect(warning.tokensLeft).toBeGreaterThan(0);
      expect(warning.percent).toBe(Math.round((warning.tokens / BUDGET) * 100));
      expect(warning.percent).toBeGreaterThanOrEqual(64);
      const nextEviction = notices.findIndex((n, i) => i > warning.i && n.eviction);
      const episode = notices.slice(warning.i + 1, nextEviction < 0 ? undefined : nextEviction);
      expect(episode.filter((n) => n.warning)).toHaveLength(0);
    }

    // The eviction notice: its stages, an index line per span, the recall forms.
    const eviction = notices[firstEviction]!.eviction!;
    expect(eviction.tokensFreed).toBeGreaterThan(0);
    expect(eviction.recallForms).toBe(true);
    expect(eviction.lines.length).toBeGreaterThan(0);
    for (const line of eviction.lines) {
      expect(eviction.stages).toContain(line.stage);
      expect(line.from).toBeLessThanOrEqual(line.to);
      if (line.stage !== 'fold-tool-results') expect(line.recall).toBeDefined();
    }
    // The folds it lists are the results the prompt now shows as placeholders.
    const outputs = resultOutputs(prompts[firstEviction]!);
    const placeholders = outputs.filter(
      (output) => !output.includes(filler(2_400, output.split('\n')[0]!.length)),
    );
    const folded = eviction.lines.filter((line) => line.stage === 'fold-tool-results');
    expect(folded.length).toBeGreaterThan(0);
    expect(folded.reduce((n, line) => n + line.count, 0)).toBe(placeholders.length);
    expect(folded[0]!.description).toMatch(/^read_file/);
    // Later evictions go past folding (drop, summarize): each such line names the calls its
    // span held and gives the recall of exactly its own range (or its one ref).
    const wider = notices
      .flatMap((n) => n.eviction?.lines ?? [])
      .filter((line) => line.stage !== 'fold-tool-results');
    expect(wider.length).toBeGreaterThan(0);
    for (const line of wider) {
      if (line.from === line.to && line.count === 1) expect(line.recall).toHaveProperty('ref');
      else expect(line.recall).toEqual({ from: line.from, to: line.to });
      expect(line.description).toMatch(/^read_file\(\{"path":"src\/file_\d+\.ts"\}\)/);
    }

    // The agent recalls the first span the index lists and gets the results verbatim.
    const recalled = result.steps[firstEviction]!.toolResults[0]!.output as {
      content: string;
      records: Array<{ seq: number }>;
    };
    expect(recalled.records.length).toBeGreaterThan(0);
    for (const record of recalled.records) {
      expect(record.seq).toBeGreaterThanOrEqual(recallAsked!.from);
      expect(record.seq).toBeLessThanOrEqual(recallAsked!.to);
    }
    expect(recalled.content).toContain(fileText('src/file_0.ts'));
  });

  it('the degrade notice names each preview with its true size and a ref recall pages through', async () => {
    const session = createBaton({ model: 'gpt-4o' }).session('degrade');
    const full = (shard: number) => shardDump(shard).repeat(6);
    let previews: ReturnType<typeof readNotices>['degrade'];
    const { model } = scriptedModel(({ step, trailer }) => {
      if (step === 0)
        return { calls: [0, 1, 2, 3].map((shard) => ({ name: 'fetch_shard', input: { shard } })) };
      if (step === 1) {
        previews = readNotices(trailer).degrade;
        const last = previews?.at(-1);
        return {
          calls: [{ name: 'recall', input: { ref: last?.ref, offset: (last?.chars ?? 0) - 60, limit: 60 } }],
        };
      }
      return { text: 'done' };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: {
        ...session.tools,
        fetch_shard: tool({
          inputSchema: z.object({ shard: z.number() }),
          execute: async ({ shard }) => full(shard),
        }),
      },
      stopWhen: stepCountIs(5),
      prompt: 'Fetch the four shards.',
    });
    expect(previews).toHaveLength(4);
    for (const [shard, preview] of previews!.entries()) {
      expect(preview.what).toBe('fetch_shard');
      expect(preview.chars).toBe(full(shard).length);
      expect(preview.shown).toBeLessThan(preview.chars);
    }
    // One tool message holds the four results: one seq, four refs.
    expect(new Set(previews!.map((p) => p.ref)).size).toBe(4);
    // The ref and size the notice gives read the last 60 characters of the fourth result.
    const tail = result.steps[1]!.toolResults[0]!.output as { content: string };
    expect(tail.content).toBe(full(3).slice(-60));
  });

  it('the turn after an unfit step opens with the unfit notice, once, naming the checkpoint the host was given', async () => {
    const session = createBaton(WINDOW).session('unfit-next');
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 2 || step === 3) return contextLengthError();
      if (step < 2) return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
      return { text: 'carrying on' };
    });
    const wrapped = wrapLanguageModel({ model, middleware: session.middleware });
    const tools = { read_file: readFile, ...session.tools };
    const messages: ModelMessage[] = [{ role: 'user', content: 'Read two files.' }];
    const first = await generateText({ model: wrapped, tools, stopWhen: stepCountIs(10), messages });
    const told = first.providerMetadata?.baton as { outcome: string; reason: string; checkpointRef: string };
    expect(told.outcome).toBe('unfit');
    messages.push(...first.response.messages, { role: 'user', content: 'Try again.' });
    const sentBefore = prompts.length;
    const second = await generateText({ model: wrapped, tools, stopWhen: stepCountIs(10), messages });
    expect(second.text).toBe('carrying on');

    const unfit = readNotices(trailerOf(prompts[sentBefore]!)).unfit;
    expect(unfit).toBeDefined();
    expect(unfit!.checkpointRef).toBe(told.checkpointRef);
    expect(unfit!.reason).toBe(told.reason);
    expect(unfit!.budget).toBe(BUDGET);
    expect(await session.core.readCheckpoint(unfit!.checkpointRef)).toBeDefined();
    // Told once: the next call of the turn does not repeat it.
    messages.push(...second.response.messages, { role: 'user', content: 'And now?' });
    await generateText({ model: wrapped, tools, stopWhen: stepCountIs(2), messages });
    expect(readNotices(trailerOf(prompts.at(-1)!)).unfit).toBeUndefined();
  });
});

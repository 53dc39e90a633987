import type { PromptMessage } from '@baton/core/internals';
import { shardDump } from '@baton/test-support/incidents.ts';
import { expectedTokensLeft, type NoticeFigures, readNotices } from '@baton/testing';
import { contextLengthError, filler, type ScriptedTurn, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonProcessor } from './index.ts';

// 16,000 − 4,000 reserved for output: the input budget every figure is checked against.
// The thresholds this scenario was written for: its first eviction folds only (at targetAt 0.3 the
// same compaction goes on to condense the folded results into a digest).
const WINDOW = { contextWindow: 16_000, reserveOutput: 4_000, targetAt: 0.5, minCompactionGain: 0.1 };
const BUDGET = 12_000;

const fileText = (path: string) => `${path}\n${filler(2_400, path.length)}`;
const readFile = createTool({
  id: 'read_file',
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fileText(path),
});

const memoryFor = (name: string) =>
  new Memory({ storage: new LibSQLStore({ id: `notices-${name}-${Math.random()}`, url: ':memory:' }) });

/** The outputs of a prompt's tool results named `tool`, as the model reads them. */
function outputsOf(prompt: PromptMessage[], tool: string): unknown[] {
  return prompt.flatMap((message) =>
    message.role === 'tool' && Array.isArray(message.content)
      ? message.content.flatMap((part) => {
          const result = part as { type: string; toolName?: string; output?: { value: unknown } };
          return result.type === 'tool-result' && result.toolName === tool ? [result.output?.value] : [];
        })
      : [],
  );
}

describe('notices in the prompt a Mastra Agent sends', () => {
  it('warns once per episode with the tokens left by the budget; the eviction notice indexes what went and recall brings it back', async () => {
    const baton = batonProcessor(WINDOW);
    let recallAsked: { from: number; to: number } | undefined;
    const { model, calls } = scriptedModel(({ call, trailer }): ScriptedTurn => {
      const line = readNotices(trailer).eviction?.lines[0];
      if (!recallAsked && line) {
        recallAsked = { from: line.from, to: line.to };
        return { calls: [{ name: 'recall', input: recallAsked }] };
      }
      if (call >= 40) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `src/file_${call}.ts` } }] };
    });
    const agent = new Agent({
      id: 'reader',
      name: 'reader',
      instructions: 'Read files.',
      model,
      tools: { read_file: readFile },
      ...baton.lists,
    });
    const result = await agent.generate('Read the files.', { maxSteps: 60 });
    expect(result.text).toBe('done');
    const notices = calls.map((call) => readNotices(call.trailer));

    // The warning: once in every episode (between two evictions), with its figures right.
    const firstEviction = notices.findIndex((n) => n.eviction);
    expect(firstEviction).toBeGreaterThan(0);
    const warnings = notices.flatMap((n, i) => (n.warning ? [{ i, ...n.warning }] : []));
    expect(warnings.filter((w) => w.i < firstEviction)).toHaveLength(1);
    for (const warning of warnings) {
      expect(warning.budget).toBe(BUDGET);
      expect(warning.tokensLeft).toBe(expectedTokensLeft(warning.tokens, BUDGET));
      expect(warning.tokensLeft).toBeGreaterThan(0);
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
    // The folds it lists are the results the model now reads as placeholders.
    const results = outputsOf(calls[firstEviction]!.prompt, 'read_file').map(String);
    const placeholders = results.filter((text) => !text.includes(filler(2_400, text.split('\n')[0]!.length)));
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
    const [recalled] = outputsOf(calls[firstEviction + 1]!.prompt, 'recall') as Array<{
      content: string;
      records: Array<{ seq: number }>;
    }>;
    expect(recalled!.records.length).toBeGreaterThan(0);
    for (const record of recalled!.records) {
      expect(record.seq).toBeGreaterThanOrEqual(recallAsked!.from);
      expect(record.seq).toBeLessThanOrEqual(recallAsked!.to);
    }
    expect(recalled!.content).toContain(fileText('src/file_0.ts'));
  });

  it('the degrade notice names each preview with its true size and a ref recall pages through', async () => {
    const baton = batonProcessor({ model: 'gpt-4o' });
    const full = (shard: number) => shardDump(shard).repeat(6);
    let previews: NoticeFigures['degrade'];
    const { model, calls } = scriptedModel(({ call, trailer }): ScriptedTurn => {
      if (call === 0)
        return { calls: [0, 1, 2, 3].map((shard) => ({ name: 'fetch_shard', input: { shard } })) };
      if (call === 1) {
        previews = readNotices(trailer).degrade;
        const last = previews?.at(-1);
        return {
          calls: [{ name: 'recall', input: { ref: last?.ref, offset: (last?.chars ?? 0) - 60, limit: 60 } }],
        };
      }
      return { text: 'done' };
    });
    const agent = new Agent({
      id: 'shards',
      name: 'shards',
      instructions: 'Fetch data.',
      model,
      tools: {
        fetch_shard: createTool({
          id: 'fetch_shard',
          description: 'Fetch one shard',
          inputSchema: z.object({ shard: z.number() }),
          execute: async ({ shard }) => full(shard),
        }),
      },
      ...baton.lists,
    });
    await agent.generate('Fetch the four shards.', { maxSteps: 5 });
    expect(previews).toHaveLength(4);
    for (const [shard, preview] of previews!.entries()) {
      expect(preview.what).toBe('fetch_shard');
      expect(preview.chars).toBe(full(shard).length);
      expect(preview.shown).toBeLessThan(preview.chars);
    }
    expect(new Set(previews!.map((p) => p.ref)).size).toBe(4);
    // The ref and size the notice gives read the last 60 characters of the fourth result.
    const [tail] = outputsOf(calls[2]!.prompt, 'recall') as Array<{ content: string }>;
    expect(tail!.content).toBe(full(3).slice(-60));
  });

  it('the turn after an unfit step opens with the unfit notice, once, naming the checkpoint the host was given', async () => {
    const memory = memoryFor('unfit');
    const baton = batonProcessor({ ...WINDOW, memory });
    const { model, calls } = scriptedModel(({ call }): ScriptedTurn => {
      if (call < 2) return { calls: [{ name: 'read_file', input: { path: `f${call}.ts` } }] };
      if (call < 4) return contextLengthError();
      return { text: 'carrying on' };
    });
    const agent = new Agent({
      id: 'reader',
      name: 'reader',
      instructions: 'Read files.',
      model,
      tools: { read_file: readFile },
      memory,
      ...baton.lists,
    });
    const options = { memory: { thread: 'unfit-next', resource: 'r' }, maxSteps: 10 };
    const first = await agent.generate('Read two files.', options);
    const told = baton.unfitOf(first);
    expect(told?.outcome).toBe('unfit');
    const sentBefore = calls.length;
    const second = await agent.generate('Try again.', options);
    expect(second.text).toBe('carrying on');

    const unfit = readNotices(calls[sentBefore]!.trailer).unfit;
    expect(unfit).toBeDefined();
    expect(unfit!.checkpointRef).toBe(told!.checkpointRef);
    expect(unfit!.reason).toBe(told!.reason);
    expect(unfit!.budget).toBe(BUDGET);
    // Told once: the next turn does not repeat it.
    await agent.generate('And now?', options);
    expect(calls.length).toBe(sentBefore + 2);
    expect(readNotices(calls.at(-1)!.trailer).unfit).toBeUndefined();
  });
});

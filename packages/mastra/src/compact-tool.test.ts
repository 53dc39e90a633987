import { filler, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonProcessor, type SummarizerInput } from './index.ts';

const readFile = createTool({
  id: 'read_file',
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `${path}\n${filler(2_400, path.length)}`,
});

const COMPACT_AT = 10;

/** An agent that reads files, calls compact with `input` at call 10, then answers. */
async function run(input: { instruction?: string }) {
  const events: BatonEvent[] = [];
  const summarizerInputs: SummarizerInput[] = [];
  const memory = new Memory({
    storage: new LibSQLStore({ id: `baton-compact-${Math.random()}`, url: ':memory:' }),
  });
  const baton = batonProcessor({
    contextWindow: 32_000,
    memory,
    onEvent: (event) => events.push(event),
    summarizer: async (given) => {
      summarizerInputs.push(given);
      return `KEPT AS ASKED: ${given.instruction}`;
    },
  });
  const { model, calls } = scriptedModel(({ call }) => {
    if (call === COMPACT_AT) return { calls: [{ name: 'compact', input }] };
    if (call >= COMPACT_AT + 2) return { text: 'ok' };
    return { calls: [{ name: 'read_file', input: { path: `f${call}.ts` } }] };
  });
  const agent = new Agent({
    id: 'compact-instruction',
    name: 'compact-instruction',
    instructions: 'Read files.',
    model,
    tools: { read_file: readFile },
    memory,
    ...baton.lists,
  });
  await agent.generate('Read files.', {
    memory: { thread: 'compact-instruction', resource: 'dev' },
    maxSteps: COMPACT_AT + 4,
  });
  const stages = events.flatMap((e) => (e.type === 'stage-completed' ? [e.stage] : []));
  return { calls, stages, summarizerInputs };
}

describe('the compact tool through a real Mastra Agent', () => {
  it('compact({ instruction }): the next prompt holds a summary that follows it, where folding alone would reach the target, and the reply has true numbers', async () => {
    // Without an instruction the same history compacts by folding alone.
    const plain = await run({});
    expect(plain.stages).toEqual(['fold-tool-results']);
    expect(plain.summarizerInputs).toHaveLength(0);

    const { calls, stages, summarizerInputs } = await run({ instruction: 'keep file names' });
    expect(stages[0]).toBe('summarize');
    expect(summarizerInputs.length).toBeGreaterThan(0);
    expect(summarizerInputs.every((i) => i.instruction === 'keep file names')).toBe(true);
    // What the model reads: the summary following the instruction replaces the older turns…
    const next = calls[COMPACT_AT + 1]!;
    const summary =
      /\[baton\] Summary of earlier conversation \(seq (\d+)-(\d+), .*? returns them verbatim\):\\nKEPT AS ASKED: keep file names/.exec(
        next.visible,
      );
    expect(summary).not.toBeNull();
    expect(next.visible).not.toContain('f1.ts\\n');
    expect(next.trailer).toContain('Your compact instruction was followed: the summary of seq');
    // …and the tool's reply it read said so, with the numbers of the prompt before.
    const reply =
      /The context is about ([\d,]+) tokens now\. Before your next step, messages seq (\d+)-(\d+) \(\d+ messages, about [\d,]+ tokens\) will be replaced by a summary that follows your instruction; then, if the context is still above ([\d,]+) tokens/.exec(
        next.visible,
      );
    expect(reply).not.toBeNull();
    const [, tokensText, from, to, targetText] = reply!;
    const tokens = Number(tokensText!.replaceAll(',', ''));
    // The mock reports characters / 4 of the prompt: calibration brings Baton's count to it.
    const reported = Math.ceil(calls[COMPACT_AT]!.visible.length / 4);
    expect(Math.abs(tokens - reported) / reported).toBeLessThan(0.05);
    // Half of what is there: the context was well below targetAt of the budget.
    expect(Number(targetText!.replaceAll(',', ''))).toBe(Math.round(tokens / 2));
    expect([from, to]).toEqual([summary![1], summary![2]]);
  });
});

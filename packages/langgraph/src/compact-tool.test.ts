import { gptTokenizer, TokenCounter } from '@baton/core';
import { filler } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonMiddleware, type SummarizerInput, toEntries } from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);

const readFile = tool(async ({ path }: { path: string }) => `${path}\n${filler(2_400, path.length)}`, {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

const COMPACT_AT = 10;

/** An agent that reads files, calls compact with `input` at step 10, then answers. */
async function run(input: { instruction?: string }) {
  const events: BatonEvent[] = [];
  const summarizerInputs: SummarizerInput[] = [];
  const middleware = batonMiddleware({
    contextWindow: 32_000,
    onEvent: (event) => events.push(event),
    summarizer: async (given) => {
      summarizerInputs.push(given);
      return `KEPT AS ASKED: ${given.instruction}`;
    },
  });
  const seen: BaseMessage[][] = [];
  const model = fakeModel();
  for (let step = 0; step <= COMPACT_AT + 2; step++) {
    model.respond((messages: BaseMessage[]) => {
      seen.push(messages);
      if (step === COMPACT_AT + 2) return new AIMessage('ok');
      const [name, args] = step === COMPACT_AT ? ['compact', input] : ['read_file', { path: `f${step}.ts` }];
      return new AIMessage({ content: '', tool_calls: [{ id: `c${step}`, name, args, type: 'tool_call' }] });
    });
  }
  const agent = createAgent({
    model,
    tools: [readFile],
    middleware: [middleware],
    store: new InMemoryStore(),
  });
  await agent.invoke(
    { messages: [new HumanMessage('Read files.')] },
    { configurable: { thread_id: 'compact-instruction' }, recursionLimit: 100 },
  );
  const stages = events.flatMap((e) => (e.type === 'stage-completed' ? [e.stage] : []));
  return { seen, stages, summarizerInputs };
}

describe('the compact tool through createAgent', () => {
  it('compact({ instruction }): the next prompt holds a summary that follows it, where folding alone would reach the target, and the reply has true numbers', async () => {
    // Without an instruction the same history compacts by folding alone.
    const plain = await run({});
    expect(plain.stages).toEqual(['fold-tool-results']);
    expect(plain.summarizerInputs).toHaveLength(0);

    const { seen, stages, summarizerInputs } = await run({ instruction: 'keep file names' });
    expect(stages[0]).toBe('summarize');
    expect(summarizerInputs.length).toBeGreaterThan(0);
    expect(summarizerInputs.every((i) => i.instruction === 'keep file names')).toBe(true);
    // What the model reads: the summary following the instruction replaces the older turns…
    const next = seen[COMPACT_AT + 1]!;
    const summary = next
      .map((m) => m.text)
      .map((text) =>
        /^\[baton\] Summary of earlier conversation \(seq (\d+)-(\d+), .*? returns them verbatim\):\nKEPT AS ASKED: keep file names/.exec(
          text,
        ),
      )
      .find((match) => match !== null);
    expect(summary).toBeDefined();
    expect(next.some((m) => m.text.startsWith('f1.ts\n'))).toBe(false);
    expect(next.at(-1)!.text).toContain('Your compact instruction was followed: the summary of seq');
    // …and the tool's reply it read said so, with the numbers of the prompt before.
    const answer = next.find((m) => m.type === 'tool' && m.text.includes('"scheduled":true'))!;
    const reply =
      /The context is about ([\d,]+) tokens now\. Before your next step, messages seq (\d+)-(\d+) \(\d+ messages, about [\d,]+ tokens\) will be replaced by a summary that follows your instruction; then, if the context is still above ([\d,]+) tokens/.exec(
        answer.text,
      );
    expect(reply).not.toBeNull();
    const [, tokensText, from, to, targetText] = reply!;
    const tokens = Number(tokensText!.replaceAll(',', ''));
    // The prompt before the compact call, as o200k counts its messages (the tools' schemas and
    // framing make up the rest of Baton's count).
    const counted = toEntries(seen[COMPACT_AT]!).reduce((sum, e) => sum + counter.raw(e), 0);
    expect(tokens).toBeGreaterThanOrEqual(counted);
    expect(tokens - counted).toBeLessThan(1_000);
    // Half of what is there: the context was well below targetAt of the budget.
    expect(Number(targetText!.replaceAll(',', ''))).toBe(Math.round(tokens / 2));
    expect([from, to]).toEqual([summary![1], summary![2]]);
  });
});

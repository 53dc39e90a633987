import { anthropicRuleViolations, anthropicWire, filler } from '@baton/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonMiddleware } from './index.ts';

const WINDOW = 200_000;
const STEPS = 45;

describe('@langchain/anthropic on a 200k window, the model named once (in ChatAnthropic)', () => {
  // Unset: ChatAnthropic fills in its own default (16,384 for claude-sonnet-4-5 in 1.5.11).
  for (const maxTokens of [undefined, 64_000])
    it(`reserves the max_tokens the model sends (${maxTokens ?? 'its default'}): input + max_tokens within the window in every request`, async () => {
      const wire = anthropicWire({
        contextWindow: WINDOW,
        script: ({ index }) =>
          index < STEPS - 1
            ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
            : { text: 'done' },
      });
      const events: BatonEvent[] = [];
      const readFile = tool(
        async ({ path }: { path: string }) => `// ${path}\n${filler(24_000, path.length)}`,
        {
          name: 'read_file',
          description: 'Reads a file of the repository',
          schema: z.object({ path: z.string() }),
        },
      );
      const graph = createAgent({
        model: new ChatAnthropic({
          model: 'claude-sonnet-4-5',
          apiKey: 'test-key',
          // The Anthropic SDK refuses a non-streaming request this large ("Streaming is required").
          ...(maxTokens ? { maxTokens, streaming: true } : {}),
          clientOptions: { fetch: wire.fetch },
        }),
        tools: [readFile],
        // No model, no window: both come from the call's model.
        middleware: [batonMiddleware({ onEvent: (e) => events.push(e) })],
        checkpointer: new MemorySaver(),
        store: new InMemoryStore(),
      });
      const state = await graph.invoke(
        { messages: [new HumanMessage('Read every file of src/, then say done.')] },
        { configurable: { thread_id: 'long-loop' }, recursionLimit: 500 },
      );
      const last = state.messages.at(-1);
      expect(last instanceof AIMessage ? last.text : '').toBe('done');
      const { requests } = wire;
      expect(requests).toHaveLength(STEPS);
      for (const r of requests) expect(r.maxOutputTokens).toBe(maxTokens ?? 16_384);
      expect(requests.filter((r) => r.refused)).toEqual([]);
      expect(requests.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > WINDOW)).toEqual([]);
      for (const r of requests) expect(anthropicRuleViolations(r.body)).toEqual([]);
      expect(events.some((e) => e.type === 'stage-completed')).toBe(true);
      expect(Math.max(...requests.map((r) => r.inputTokens))).toBeGreaterThan(100_000);
    }, 120_000);
});

describe('reserveOutput below the max_tokens ChatAnthropic sends, which batonMiddleware cannot lower', () => {
  const SMALL = 32_000;
  const RESERVE = 4_000;
  const LOOP = 30;
  function agentOn(
    wire: ReturnType<typeof anthropicWire>,
    maxTokens: number | undefined,
    events: BatonEvent[],
  ) {
    const readFile = tool(
      async ({ path }: { path: string }) => `// ${path}\n${filler(12_000, path.length)}`,
      {
        name: 'read_file',
        description: 'Reads a file of the repository',
        schema: z.object({ path: z.string() }),
      },
    );
    return createAgent({
      model: new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'test-key',
        ...(maxTokens ? { maxTokens } : {}),
        clientOptions: { fetch: wire.fetch },
      }),
      tools: [readFile],
      middleware: [
        batonMiddleware({ contextWindow: SMALL, reserveOutput: RESERVE, onEvent: (e) => events.push(e) }),
      ],
      checkpointer: new MemorySaver(),
      store: new InMemoryStore(),
    });
  }
  const script = ({ index }: { index: number }) =>
    index < LOOP - 1
      ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
      : { text: 'done' };
  const run = (agent: ReturnType<typeof agentOn>) =>
    agent.invoke(
      { messages: [new HumanMessage('Read every file of src/, then say done.')] },
      { configurable: { thread_id: 'reserve' }, recursionLimit: 200 },
    );

  it('refuses the first call, saying what to change, before anything is sent', async () => {
    // ChatAnthropic's own 16,384: reserving 4,000 would let input + max_tokens pass the window.
    const wire = anthropicWire({ contextWindow: SMALL, script });
    await expect(run(agentOn(wire, undefined, []))).rejects.toThrow(
      /reserveOutput \(4000\) is below this call's output limit \(16384 tokens\).*set maxTokens on the model.*or raise reserveOutput to 16384/,
    );
    expect(wire.requests).toEqual([]);
  });

  it('with maxTokens on the model at the reservation, input + max_tokens stays within the window in every request', async () => {
    const wire = anthropicWire({ contextWindow: SMALL, script });
    const events: BatonEvent[] = [];
    const state = await run(agentOn(wire, RESERVE, events));
    const last = state.messages.at(-1);
    expect(last instanceof AIMessage ? last.text : '').toBe('done');
    expect(wire.requests).toHaveLength(LOOP);
    for (const r of wire.requests) expect(r.maxOutputTokens).toBe(RESERVE);
    expect(wire.requests.filter((r) => r.refused)).toEqual([]);
    expect(wire.requests.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > SMALL)).toEqual([]);
    // The loop outgrew the window: what kept it within was Baton compacting.
    expect(events.some((e) => e.type === 'stage-completed')).toBe(true);
  }, 60_000);
});

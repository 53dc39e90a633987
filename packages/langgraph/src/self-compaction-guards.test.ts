import type { BatonEvent } from '@baton/core';
import {
  codingAllYes,
  codingProbeAnswer,
  EVERY_STEP_CODING_PROBES,
  PROBE_MARKER,
} from '@baton/test-support/self-compaction.ts';
import { filler } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonMiddlewareOptions, batonMiddleware } from './index.ts';

const toolResults = (messages: BaseMessage[]) => messages.filter((m) => m.type === 'tool').length;

/**
 * `edits` edits (default 3), one per step, then a final answer. The agent's own fake chat
 * model answers the probes: its `withStructuredOutput` runnable is scripted by `probe` and
 * records the messages each probe was sent.
 */
async function editLoop(probe: () => unknown, options: BatonMiddlewareOptions, edits = 3) {
  const events: BatonEvent[] = [];
  const model = fakeModel();
  const probePrompts: BaseMessage[][] = [];
  Object.assign(model, {
    withStructuredOutput: () => ({
      invoke: async (messages: BaseMessage[]) => {
        probePrompts.push(messages);
        const answer = probe();
        if (answer instanceof Error) throw answer;
        return answer;
      },
    }),
  });
  const agentPrompts: string[] = [];
  let agentStep = 0;
  for (let i = 0; i < 40; i++)
    model.respond((messages: BaseMessage[]) => {
      if (messages[0]?.type === 'system' && messages[0].text.includes('continuation summary'))
        return new AIMessage('Edited src/a.ts; tests not run.');
      agentPrompts.push(JSON.stringify(messages.map((m) => m.content)));
      const step = agentStep++;
      if (step >= edits) return new AIMessage('done');
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `c${step}`, name: 'edit', args: { path: `src/${step}.ts` }, type: 'tool_call' }],
      });
    });
  const agent = createAgent({
    model,
    tools: [
      tool(async ({ path }: { path: string }) => `edited ${path}\n${filler(6_000, path.length)}`, {
        name: 'edit',
        description: 'Edit a file',
        schema: z.object({ path: z.string() }),
      }),
    ],
    middleware: [batonMiddleware({ ...options, onEvent: (e) => events.push(e) })],
    store: new InMemoryStore(),
  });
  const result = await agent.invoke(
    { messages: [new HumanMessage('Edit the three files.')] },
    { configurable: { thread_id: 'guards' }, recursionLimit: 100 },
  );
  return { text: result.messages.at(-1)!.text, events, agentPrompts, probePrompts };
}

const probesOf = (events: BatonEvent[]) => events.filter((e) => e.type === 'probe-decided');

describe('SELFCOMPACT guards through createAgent', () => {
  it('probes only once the model has consumed a batch of tool results (the closed-unit gate)', async () => {
    const { text, events, probePrompts } = await editLoop(() => codingProbeAnswer(false), {
      contextWindow: 64_000,
      selfCompact: EVERY_STEP_CODING_PROBES,
    });
    expect(text).toBe('done');
    // Step 0 has no assistant message, step 1 results the model has not seen: no probe there.
    expect(probePrompts.map(toolResults)).toEqual([2, 3]);
    for (const prompt of probePrompts) expect(prompt.at(-1)!.text).toContain(PROBE_MARKER);
    expect(probesOf(events).map((p) => p.decision)).toEqual(['CONTINUE', 'CONTINUE']);
    expect(probesOf(events)[0]!.criteria[0]).toEqual({
      id: 'CYCLE-CLOSED',
      answer: 'N',
      evidence: 'an edit is not tested yet',
    });
  });

  it('compactAt still compacts when every probe says CONTINUE (the backstop)', async () => {
    const { text, events, agentPrompts } = await editLoop(
      () => codingProbeAnswer(false),
      { contextWindow: 16_000, compactAt: 0.3, selfCompact: EVERY_STEP_CODING_PROBES },
      8,
    );
    expect(text).toBe('done');
    expect(probesOf(events).length).toBeGreaterThan(0);
    expect(probesOf(events).every((p) => p.decision === 'CONTINUE')).toBe(true);
    expect(events.find((e) => e.type === 'self-compacted')).toMatchObject({ early: false });
    // What the model read last is smaller than what the eight edits returned.
    expect(agentPrompts.at(-1)!.length).toBeLessThan(8 * filler(6_000, 'src/0.ts'.length).length);
  });

  it('a probe that throws leaves the call going, with the error in probe-decided (failure-open)', async () => {
    const { text, events } = await editLoop(() => new Error('probe endpoint down'), {
      contextWindow: 64_000,
      selfCompact: EVERY_STEP_CODING_PROBES,
    });
    expect(text).toBe('done');
    const probes = probesOf(events);
    expect(probes).toHaveLength(2);
    for (const probe of probes) {
      expect(probe).toMatchObject({ decision: 'CONTINUE', criteria: [] });
      expect(probe.error).toContain('probe endpoint down');
    }
  });

  it('an all-Y answer with blank evidence is malformed: no compaction, the error in probe-decided', async () => {
    const { text, events, agentPrompts } = await editLoop(() => codingAllYes('  '), {
      contextWindow: 64_000,
      selfCompact: EVERY_STEP_CODING_PROBES,
    });
    expect(text).toBe('done');
    const probes = probesOf(events);
    expect(probes).toHaveLength(2);
    for (const probe of probes) {
      expect(probe.decision).toBe('CONTINUE');
      expect(probe.error).toMatch(/no evidence/);
    }
    expect(events.some((e) => e.type === 'self-compacted')).toBe(false);
    expect(agentPrompts.some((p) => p.includes('Edited src/a.ts'))).toBe(false);
  });
});

import type { BatonEvent } from '@baton/core';
import { RUBRICS, VERBATIM_HEADING } from '@baton/core';
import { codingProbeAnswer, EAGER_CODING_PROBES } from '@baton/test-support/self-compaction.ts';
import { filler } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware } from './index.ts';

const answers = codingProbeAnswer;

describe('SELFCOMPACT through createAgent: the agent’s chat model judges and summarizes', () => {
  it('probes with withStructuredOutput, compresses after the passing test cycle with a model-written summary, and keeps the probe out of the state', async () => {
    const events: BatonEvent[] = [];
    const model = fakeModel();
    model.structuredResponse(answers(false));
    const seen: BaseMessage[][] = [];
    const summaryRequests: BaseMessage[][] = [];
    let agentStep = 0;
    for (let i = 0; i < 40; i++) {
      model.respond((messages: BaseMessage[]) => {
        if (messages[0]?.type === 'system' && messages[0].text.includes('continuation summary')) {
          summaryRequests.push(messages);
          return new AIMessage(
            `${VERBATIM_HEADING}\n- tests: 12 passed\n\nEdited the date parser; tests pass.`,
          );
        }
        seen.push(messages);
        const step = agentStep++;
        const call = (name: string, args: Record<string, unknown>) =>
          new AIMessage({ content: '', tool_calls: [{ id: `c${step}`, name, args, type: 'tool_call' }] });
        if (step >= 9) return new AIMessage('fixed');
        if (step === 6) return call('run_tests', {});
        return call('edit', { path: `src/date_${step}.ts` });
      });
    }
    const agent = createAgent({
      model,
      tools: [
        tool(async ({ path }: { path: string }) => `edited ${path}\n${filler(600, path.length)}`, {
          name: 'edit',
          description: 'Edit a file',
          schema: z.object({ path: z.string() }),
        }),
        tool(
          async () => {
            model.structuredResponse(answers(true)); // from now on the model judges the unit closed
            return 'tests: 12 passed, 0 failed';
          },
          { name: 'run_tests', description: 'Run the tests', schema: z.object({}) },
        ),
      ],
      middleware: [
        batonMiddleware({
          contextWindow: 32_000,
          selfCompact: EAGER_CODING_PROBES,
          onEvent: (e) => events.push(e),
        }),
      ],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Fix the failing date parser tests.')] },
      { configurable: { thread_id: 'sc' }, recursionLimit: 200 },
    );

    expect(result.messages.at(-1)!.text).toBe('fixed');
    const probes = events.filter((e) => e.type === 'probe-decided');
    expect(probes.length).toBeGreaterThan(2);
    const compress = probes.filter((p) => p.decision === 'COMPRESS');
    expect(compress).toHaveLength(1);
    expect(probes.filter((p) => p.step < compress[0]!.step).every((p) => p.decision === 'CONTINUE')).toBe(
      true,
    );
    expect(events.find((e) => e.type === 'self-compacted')).toMatchObject({ early: true });
    // The summary request is the coding rubric's: files changed, commands, failing tests, next edit; over the edits.
    expect(summaryRequests.length).toBeGreaterThan(0);
    for (const request of summaryRequests) {
      expect(request[0]!.text).toContain(RUBRICS.coding.summaryInstruction);
      expect(request.slice(1).map((m) => m.text)).toContainEqual(
        expect.stringContaining('edited src/date_0.ts'),
      );
    }
    // The event carries what the model quoted for each criterion.
    expect(compress[0]!.criteria).toContainEqual({
      id: 'TESTS-KNOWN',
      answer: 'Y',
      evidence: 'tests: 12 passed',
    });
    // The model-written summary reaches the next call; the probe never enters the state.
    expect(seen.some((m) => m.some((x) => x.text.includes('Edited the date parser; tests pass.')))).toBe(
      true,
    );
    expect(JSON.stringify(result.messages)).not.toContain('[baton] Context check');
    expect(result.messages.length).toBe(1 + 9 * 2 + 1); // view mode: the full history
  });
});

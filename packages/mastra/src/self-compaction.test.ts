import type { BatonEvent } from '@baton/core';
import { RUBRICS, VERBATIM_HEADING } from '@baton/core';
import { codingProbeAnswer, EAGER_CODING_PROBES, PROBE_MARKER } from '@baton/test-support/self-compaction.ts';
import { filler, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonProcessor } from './index.ts';

const PROBE = PROBE_MARKER;

describe('SELFCOMPACT through a Mastra Agent: the agent’s model judges and summarizes', () => {
  for (const mode of ['generate', 'stream'] as const)
    it(`probes with a JSON response format, compresses after the passing test cycle, and the probe is never stored (${mode})`, async () => {
      const events: BatonEvent[] = [];
      const baton = batonProcessor({
        contextWindow: 32_000,
        selfCompact: EAGER_CODING_PROBES,
        onEvent: (e) => events.push(e),
      });
      let agentStep = 0;
      const agentPrompts: string[] = [];
      const summaryRequests: Array<{ system: string; visible: string }> = [];
      const { model, calls } = scriptedModel(({ prompt, visible, system }) => {
        if (JSON.stringify(prompt.at(-1)).includes(PROBE)) {
          return { text: JSON.stringify(codingProbeAnswer(visible.includes('tests: 12 passed'))) };
        }
        if (system.includes('continuation summary')) {
          summaryRequests.push({ system, visible });
          return { text: `${VERBATIM_HEADING}\n- tests: 12 passed\n\nEdited the date parser; tests pass.` };
        }
        agentPrompts.push(visible);
        const step = agentStep++;
        if (step >= 9) return { text: 'fixed' };
        if (step === 6) return { calls: [{ name: 'run_tests', input: {} }] };
        return { calls: [{ name: 'edit', input: { path: `src/date_${step}.ts` } }] };
      });
      const agent = new Agent({
        id: 'coder',
        name: 'coder',
        instructions: 'Fix tests.',
        model,
        tools: {
          edit: createTool({
            id: 'edit',
            description: 'Edit a file',
            inputSchema: z.object({ path: z.string() }),
            execute: async ({ path }) => `edited ${path}\n${filler(600, path.length)}`,
          }),
          run_tests: createTool({
            id: 'run_tests',
            description: 'Run the tests',
            inputSchema: z.object({}),
            execute: async () => 'tests: 12 passed, 0 failed',
          }),
        },
        ...baton.lists,
      });
      const text =
        mode === 'generate'
          ? (await agent.generate('Fix the failing date parser tests.', { maxSteps: 20 })).text
          : await (await agent.stream('Fix the failing date parser tests.', { maxSteps: 20 })).text;

      expect(text).toBe('fixed');
      const probes = events.filter((e) => e.type === 'probe-decided');
      expect(probes.length).toBeGreaterThan(2);
      expect(probes.every((p) => p.error === undefined)).toBe(true);
      const compress = probes.filter((p) => p.decision === 'COMPRESS');
      expect(compress).toHaveLength(1);
      expect(probes.filter((p) => p.step < compress[0]!.step).every((p) => p.decision === 'CONTINUE')).toBe(
        true,
      );
      expect(events.find((e) => e.type === 'self-compacted')).toMatchObject({ early: true });
      // The summary request is the coding rubric's: files changed, commands, failing tests, next edit; over the edits.
      expect(summaryRequests.length).toBeGreaterThan(0);
      for (const request of summaryRequests) {
        expect(request.system).toContain(RUBRICS.coding.summaryInstruction);
        expect(request.visible).toContain('edited src/date_0.ts');
      }
      // The event carries what the model quoted for each criterion.
      expect(compress[0]!.criteria).toContainEqual({
        id: 'TESTS-KNOWN',
        answer: 'Y',
        evidence: 'tests: 12 passed',
      });
      expect(calls.filter((c) => JSON.stringify(c.prompt.at(-1)).includes(PROBE))).toHaveLength(
        probes.length,
      );
      expect(agentPrompts.some((p) => p.includes('Edited the date parser; tests pass.'))).toBe(true);
      for (const prompt of agentPrompts) expect(prompt).not.toContain(PROBE);
    });
});

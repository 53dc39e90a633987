import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { RUBRICS, VERBATIM_HEADING } from '@baton/core';
import { codingProbeAnswer, EAGER_CODING_PROBES, PROBE_MARKER } from '@baton/test-support/self-compaction.ts';
import { filler, scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, createBaton } from './index.ts';

const PROBE = PROBE_MARKER;
const textOf = (prompt: LanguageModelV4Prompt) => JSON.stringify(prompt);
const isProbe = (prompt: LanguageModelV4Prompt) => textOf(prompt.slice(-1)).includes(PROBE);
const isSummary = (prompt: LanguageModelV4Prompt) =>
  textOf(prompt.slice(0, 1)).includes('continuation summary');

describe('SELFCOMPACT through generateText: probes and summaries by the wrapped model', () => {
  it('asks the same model with structured output at closed units, compresses after the passing test cycle, and the probe never enters the history', async () => {
    const events: BatonEvent[] = [];
    const baton = createBaton({
      contextWindow: 32_000,
      selfCompact: EAGER_CODING_PROBES,
      onEvent: (e) => events.push(e),
    });
    const session = baton.session('coding');
    const PASS_AT = 6;
    let agentCalls = 0;
    const { model, prompts } = scriptedModel(({ prompt, visible }) => {
      if (isProbe(prompt)) {
        return { text: JSON.stringify(codingProbeAnswer(visible.includes('tests: 12 passed'))) };
      }
      if (isSummary(prompt))
        return { text: `${VERBATIM_HEADING}\n- tests: 12 passed\n\nEdited src/date_*.ts; tests pass.` };
      const step = agentCalls++;
      if (step >= 9) return { text: 'fixed' };
      if (step === PASS_AT) return { calls: [{ name: 'run_tests', input: {} }] };
      return { calls: [{ name: 'edit', input: { path: `src/date_${step}.ts` } }] };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: {
        edit: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => `edited ${path}\n${filler(600, path.length)}`,
        }),
        run_tests: tool({ inputSchema: z.object({}), execute: async () => 'tests: 12 passed, 0 failed' }),
      },
      stopWhen: stepCountIs(20),
      prompt: 'Fix the failing date parser tests.',
    });

    expect(result.text).toBe('fixed');
    const probes = events.filter((e) => e.type === 'probe-decided');
    expect(probes.length).toBeGreaterThan(2);
    expect(probes.filter((p) => p.decision === 'COMPRESS')).toHaveLength(1);
    const compress = probes.find((p) => p.decision === 'COMPRESS')!;
    expect(probes.filter((p) => p.step < compress.step).every((p) => p.decision === 'CONTINUE')).toBe(true);
    expect(events.find((e) => e.type === 'self-compacted')).toMatchObject({ early: true });

    // The probe went to the same model, with structured output; the summary too.
    const probeCalls = prompts.filter(isProbe);
    expect(probeCalls).toHaveLength(probes.length);
    expect(prompts.filter(isSummary).length).toBeGreaterThan(0);
    // The summary request is the coding rubric's: files changed, commands, failing tests, next edit; over the edits.
    for (const request of prompts.filter(isSummary)) {
      expect(textOf(request.slice(0, 1))).toContain(RUBRICS.coding.summaryInstruction);
      expect(textOf(request.slice(1))).toContain('edited src/date_0.ts');
    }
    // The event carries what the model quoted for each criterion.
    expect(compress.criteria).toContainEqual({
      id: 'TESTS-KNOWN',
      answer: 'Y',
      evidence: 'tests: 12 passed',
    });
    // Never in the history: no agent call and no response message carries the probe.
    const agentPrompts = prompts.filter((p) => !isProbe(p) && !isSummary(p));
    for (const prompt of agentPrompts) expect(textOf(prompt)).not.toContain(PROBE);
    expect(JSON.stringify(result.response.messages)).not.toContain(PROBE);
    // The model-written summary is what the next call sees.
    expect(agentPrompts.some((p) => textOf(p).includes('Edited src/date_*.ts; tests pass.'))).toBe(true);

    // Cache-friendly: a CONTINUE probe's conversation is the next real call's, plus one message at the end.
    const firstProbe = prompts.findIndex(isProbe);
    const probeBody = prompts[firstProbe]!.filter((m) => m.role !== 'system').slice(0, -1);
    const nextCall = prompts[firstProbe + 1]!.filter((m) => m.role !== 'system');
    expect(JSON.stringify(nextCall)).toBe(JSON.stringify(probeBody));
  });
});

import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import {
  codingAllYes,
  codingProbeAnswer,
  EVERY_STEP_CODING_PROBES,
  PROBE_MARKER,
} from '@baton/test-support/self-compaction.ts';
import { filler, type ScriptedTurn, scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, type BatonOptions, createBaton } from './index.ts';

const isProbe = (prompt: LanguageModelV4Prompt) => JSON.stringify(prompt.at(-1)).includes(PROBE_MARKER);
const toolResults = (prompt: LanguageModelV4Prompt) =>
  prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).filter((p) => p.type === 'tool-result').length;

/** `edits` edits (default 3), one per step, then a final answer; the probe answered by `probe`. */
async function editLoop(
  probe: (prompt: LanguageModelV4Prompt) => ScriptedTurn | Error,
  options: BatonOptions,
  edits = 3,
) {
  const events: BatonEvent[] = [];
  const session = createBaton({ ...options, onEvent: (e) => events.push(e) }).session('guards');
  let agentStep = 0;
  const agentPrompts: string[] = [];
  const { model, prompts } = scriptedModel(({ prompt, visible }) => {
    if (isProbe(prompt)) return probe(prompt);
    if (visible.includes('continuation summary')) return { text: 'Edited src/a.ts; tests not run.' };
    agentPrompts.push(visible);
    const step = agentStep++;
    return step >= edits
      ? { text: 'done' }
      : { calls: [{ name: 'edit', input: { path: `src/${step}.ts` } }] };
  });
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware: session.middleware }),
    tools: {
      edit: tool({
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => `edited ${path}\n${filler(6_000, path.length)}`,
      }),
    },
    stopWhen: stepCountIs(10),
    prompt: 'Edit the three files.',
  });
  return { result, events, agentPrompts, probePrompts: prompts.filter(isProbe) };
}

const probesOf = (events: BatonEvent[]) => events.filter((e) => e.type === 'probe-decided');

describe('SELFCOMPACT guards through generateText', () => {
  it('probes only once the model has consumed a batch of tool results (the closed-unit gate)', async () => {
    const { result, events, probePrompts } = await editLoop(
      () => ({ text: JSON.stringify(codingProbeAnswer(false)) }),
      {
        contextWindow: 64_000,
        selfCompact: EVERY_STEP_CODING_PROBES,
      },
    );
    expect(result.text).toBe('done');
    // Step 0 has no assistant message, step 1 results the model has not seen: no probe there.
    expect(probePrompts.map(toolResults)).toEqual([2, 3]);
    expect(probesOf(events).map((p) => p.decision)).toEqual(['CONTINUE', 'CONTINUE']);
    expect(probesOf(events)[0]!.criteria[0]).toEqual({
      id: 'CYCLE-CLOSED',
      answer: 'N',
      evidence: 'an edit is not tested yet',
    });
  });

  it('compactAt still compacts when every probe says CONTINUE (the backstop)', async () => {
    const { result, events, agentPrompts } = await editLoop(
      () => ({ text: JSON.stringify(codingProbeAnswer(false)) }),
      { contextWindow: 16_000, compactAt: 0.3, selfCompact: EVERY_STEP_CODING_PROBES },
      8,
    );
    expect(result.text).toBe('done');
    expect(probesOf(events).length).toBeGreaterThan(0);
    expect(probesOf(events).every((p) => p.decision === 'CONTINUE')).toBe(true);
    expect(events.find((e) => e.type === 'self-compacted')).toMatchObject({ early: false });
    // What the model read last is smaller than what the eight edits returned.
    const returned = 8 * filler(6_000, 'src/0.ts'.length).length;
    expect(agentPrompts.at(-1)!.length).toBeLessThan(returned);
  });

  it('a probe that throws leaves the call going, with the error in probe-decided (failure-open)', async () => {
    const { result, events } = await editLoop(() => new Error('probe endpoint down'), {
      contextWindow: 64_000,
      selfCompact: EVERY_STEP_CODING_PROBES,
    });
    expect(result.text).toBe('done');
    const probes = probesOf(events);
    expect(probes).toHaveLength(2);
    for (const probe of probes) {
      expect(probe).toMatchObject({ decision: 'CONTINUE', criteria: [] });
      expect(probe.error).toContain('probe endpoint down');
    }
  });

  it('an all-Y answer with blank evidence is malformed: no compaction, the error in probe-decided', async () => {
    const { result, events, agentPrompts } = await editLoop(
      () => ({ text: JSON.stringify(codingAllYes('  ')) }),
      {
        contextWindow: 64_000,
        selfCompact: EVERY_STEP_CODING_PROBES,
      },
    );
    expect(result.text).toBe('done');
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

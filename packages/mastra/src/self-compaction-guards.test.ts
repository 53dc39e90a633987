import type { BatonEvent } from '@baton/core';
import type { PromptMessage } from '@baton/core/internals';
import {
  codingAllYes,
  codingProbeAnswer,
  EVERY_STEP_CODING_PROBES,
  PROBE_MARKER,
} from '@baton/test-support/self-compaction.ts';
import { filler, type ScriptedTurn, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonProcessorOptions, batonProcessor } from './index.ts';

const isProbe = (prompt: readonly PromptMessage[]) => JSON.stringify(prompt.at(-1)).includes(PROBE_MARKER);
const toolResults = (prompt: readonly PromptMessage[]) =>
  prompt
    .flatMap((m) => (m.role === 'tool' && typeof m.content !== 'string' ? m.content : []))
    .filter((p) => p.type === 'tool-result').length;

/** `edits` edits (default 3), one per step, then a final answer; the probe answered by `probe`. */
async function editLoop(
  probe: () => ScriptedTurn,
  options: BatonProcessorOptions,
  mode: 'generate' | 'stream',
  edits = 3,
) {
  const events: BatonEvent[] = [];
  const baton = batonProcessor({ ...options, onEvent: (e) => events.push(e) });
  let agentStep = 0;
  const agentPrompts: string[] = [];
  const { model, calls } = scriptedModel(({ prompt, visible, system }) => {
    if (isProbe(prompt)) return probe();
    if (system.includes('continuation summary')) return { text: 'Edited src/a.ts; tests not run.' };
    agentPrompts.push(visible);
    const step = agentStep++;
    return step >= edits
      ? { text: 'done' }
      : { calls: [{ name: 'edit', input: { path: `src/${step}.ts` } }] };
  });
  const agent = new Agent({
    id: 'editor',
    name: 'editor',
    instructions: 'Edit files.',
    model,
    tools: {
      edit: createTool({
        id: 'edit',
        description: 'Edit a file',
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => `edited ${path}\n${filler(6_000, path.length)}`,
      }),
    },
    ...baton.lists,
  });
  const text =
    mode === 'generate'
      ? (await agent.generate('Edit the three files.', { maxSteps: 20 })).text
      : await (await agent.stream('Edit the three files.', { maxSteps: 20 })).text;
  const probePrompts = calls.filter((c) => isProbe(c.prompt)).map((c) => c.prompt);
  return { text, events, agentPrompts, probePrompts };
}

const probesOf = (events: BatonEvent[]) => events.filter((e) => e.type === 'probe-decided');
const json = (value: unknown) => ({ text: JSON.stringify(value) });

describe('SELFCOMPACT guards through a Mastra Agent', () => {
  for (const mode of ['generate', 'stream'] as const)
    it(`probes only once the model has consumed a batch of tool results (the closed-unit gate, ${mode})`, async () => {
      const { text, events, probePrompts } = await editLoop(
        () => json(codingProbeAnswer(false)),
        { contextWindow: 64_000, selfCompact: EVERY_STEP_CODING_PROBES },
        mode,
      );
      expect(text).toBe('done');
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
    const { text, events, agentPrompts } = await editLoop(
      () => json(codingProbeAnswer(false)),
      { contextWindow: 16_000, compactAt: 0.3, selfCompact: EVERY_STEP_CODING_PROBES },
      'generate',
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
    const { text, events } = await editLoop(
      () => new Error('probe endpoint down'),
      { contextWindow: 64_000, selfCompact: EVERY_STEP_CODING_PROBES },
      'generate',
    );
    expect(text).toBe('done');
    const probes = probesOf(events);
    expect(probes).toHaveLength(2);
    for (const probe of probes) {
      expect(probe).toMatchObject({ decision: 'CONTINUE', criteria: [] });
      expect(probe.error).toContain('probe endpoint down');
    }
  });

  it('an all-Y answer with blank evidence is malformed: no compaction, the error in probe-decided', async () => {
    const { text, events, agentPrompts } = await editLoop(
      () => json(codingAllYes('  ')),
      { contextWindow: 64_000, selfCompact: EVERY_STEP_CODING_PROBES },
      'generate',
    );
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

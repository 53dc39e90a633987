import { createBaton, createEntry } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { filler, type ModelView, runAgentLoop } from './support/agent-loop.ts';

/**
 * Incident: compaction summarized a skill document away, the agent reloaded it, compaction
 * summarized it again: an infinite loop. The scripted agent needs the skill visible to work;
 * when it cannot see the skill's steps it reloads it.
 */
const SKILL = `SKILL deploy-v2\n${Array.from({ length: 12 }, (_, i) => `STEP-${i + 1}: ${filler(220, i)}`).join('\n')}`;
const WORK_STEPS = 30;

function skillAgent(view: ModelView) {
  if (!view.visible.includes('STEP-12:'))
    return { calls: [{ name: 'load_skill', input: { name: 'deploy-v2' } }] };
  const done = view.entries
    .flatMap((e) => e.parts)
    .filter((p) => p.type === 'tool-call' && p.name === 'run_step').length;
  // Counting visible run_step calls undercounts after compaction; the agent tracks progress in its notes instead.
  const noted = /progress: (\d+)/.exec(view.system);
  const progress = Math.max(done, noted ? Number(noted[1]) : 0);
  if (progress >= WORK_STEPS) return { done: `deployed after ${progress} steps` };
  return {
    calls: [
      { name: 'run_step', input: { n: progress + 1 } },
      { name: 'notes', input: { action: 'write', section: 'progress', text: `progress: ${progress + 1}` } },
    ],
  };
}

async function run(pinnedTools: string[]) {
  const baton = createBaton({ contextWindow: 6_000, pinnedTools });
  return runAgentLoop({
    session: baton.session(`skill-${pinnedTools.length}`),
    history: [createEntry(0, 'user', 'Deploy the service using the deploy-v2 skill.')],
    model: skillAgent,
    tools: {
      load_skill: () => SKILL,
      run_step: (input) =>
        `step ${(input as { n: number }).n} output\n${filler(1_400, (input as { n: number }).n)}`,
    },
    maxSteps: 150,
  });
}

describe('incident: skill document compacted away, reloaded, compacted again', () => {
  it('with pinnedTools: ["load_skill"] the agent loads its skill once and finishes', async () => {
    const result = await run(['load_skill']);
    expect(result.finished).toBe(true);
    expect(result.calls.filter((c) => c.name === 'load_skill')).toHaveLength(1);
    expect(result.prepared.some((p) => p.outcome === 'compacted')).toBe(true);
    expect(result.final).toBe(`deployed after ${WORK_STEPS} steps`);
  });

  it('without pinning the same agent reloads the skill after every compaction', async () => {
    const result = await run([]);
    const loads = result.calls.filter((c) => c.name === 'load_skill').length;
    const compactions = result.prepared.filter((p) => p.outcome === 'compacted').length;
    // Each compaction folds the skill away again and the agent pays to reload it.
    expect(loads).toBeGreaterThan(5);
    expect(loads).toBeGreaterThanOrEqual(compactions / 2);
  });
});

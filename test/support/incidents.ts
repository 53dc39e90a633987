import { filler } from '@baton/testing';

/**
 * The core's incident scenarios, as fixtures the adapters' tests re-run through their
 * frameworks: the same documents, tool outputs and model policies everywhere.
 */

/** A skill document of 12 numbered steps; an agent that cannot see STEP-12 reloads it. */
export const SKILL = `SKILL deploy-v2\n${Array.from({ length: 12 }, (_, i) => `STEP-${i + 1}: ${filler(220, i)}`).join('\n')}`;

/** One step's output of the skill's procedure. */
export const skillStepOutput = (n: number) => `step ${n}\n${filler(1_400, n)}`;

export type IncidentTurn = { calls: Array<{ name: string; input: unknown }> } | { text: string };

/**
 * The latest progress the agent can see: in its notes (the system prompt, as of the last
 * compaction) or in its own later notes writes (their calls are in its history).
 */
export function progressIn(visible: string): number {
  return Math.max(0, ...[...visible.matchAll(/progress: (\d+)/g)].map((m) => Number(m[1])));
}

/**
 * The skill-reload agent: loads the skill until all of it is visible, then runs its steps,
 * keeping its progress in the notes, and finishes after 30.
 */
export function skillAgentTurn({ visible }: { visible: string }): IncidentTurn {
  if (!visible.includes('STEP-12:')) return { calls: [{ name: 'load_skill', input: { name: 'deploy-v2' } }] };
  const progress = progressIn(visible);
  if (progress >= 30) return { text: `deployed after ${progress} steps` };
  return {
    calls: [
      { name: 'run_step', input: { n: progress + 1 } },
      { name: 'notes', input: { action: 'write', section: 'progress', text: `progress: ${progress + 1}` } },
    ],
  };
}

/** A shard of numbers with no whitespace-friendly structure: large and fresh, the unfit-batch incident. */
export const shardDump = (i: number) =>
  Array.from({ length: 9_000 }, (_, k) => `${(k * 7919 + i) % 100_003}:${(k * 31 + i) % 97}`).join(' ');

/** The fact on log page 1 that the recall incident's agent must get back after it is evicted. */
export const INCIDENT_FACT = 'INC-88213 traced to commit 4f1e9ab';
export const logPage = (page: number) =>
  `page ${page}\n${page === 1 ? `${INCIDENT_FACT}\n` : ''}${filler(1_800, page)}`;

import { RUBRICS, type SelfCompactOptions } from '@baton/core';

/** What the adapters' SELFCOMPACT tests configure: a probe at every closed unit from step 2, one compaction. */
export const EAGER_CODING_PROBES: SelfCompactOptions = {
  rubric: 'coding',
  probeEvery: 1,
  minSteps: 2,
  minTokens: 0,
  cooldownSteps: 0,
  maxCompactions: 1,
};

/** The start of Baton's probe message: how a scripted model tells a probe from an agent step. */
export const PROBE_MARKER = '[baton] Context check.';

/** A model's answer to a coding-rubric probe: every criterion met but CYCLE-CLOSED until the tests passed. */
export function codingProbeAnswer(closed: boolean) {
  return {
    criteria: RUBRICS.coding.criteria.map((c) => ({
      id: c.id,
      answer: c.id === 'CYCLE-CLOSED' && !closed ? 'N' : 'Y',
      evidence: closed ? 'tests: 12 passed' : 'an edit is not tested yet',
    })),
    decision: closed ? 'COMPRESS' : 'CONTINUE',
  };
}

/** A coding-rubric answer of Y to every criterion (decision COMPRESS), each with the given evidence. */
export function codingAllYes(evidence: string) {
  return {
    criteria: RUBRICS.coding.criteria.map((c) => ({ id: c.id, answer: 'Y', evidence })),
    decision: 'COMPRESS',
  };
}

/** Probes at every closed unit from the first step, no compaction by probe unless it says so. */
export const EVERY_STEP_CODING_PROBES: SelfCompactOptions = {
  rubric: 'coding',
  probeEvery: 1,
  minSteps: 0,
  minTokens: 0,
  cooldownSteps: 0,
  maxCompactions: 1,
};

import { type ProbeJudge, type ProbeRequest, RUBRICS, type RubricName } from '@baton/core';

/**
 * Without a model, probes are answered by a fixed heuristic: a closed unit of at least 8 tool
 * results since the last summary whose newest result is not an error; never stuck. A live
 * run asks the model itself.
 */
export function heuristicJudge(rubric: RubricName): ProbeJudge {
  return async ({ entries }) => {
    const lastSummary = entries.map((e) => e.meta?.synthetic === 'summary').lastIndexOf(true);
    const results = entries.slice(Math.max(0, lastSummary)).filter((e) => e.role === 'tool');
    const newest = results.at(-1)?.parts.find((p) => p.type === 'tool-result') as
      | { isError?: boolean }
      | undefined;
    const ready = results.length >= 8 && newest?.isError !== true;
    const criteria = RUBRICS[rubric].criteria.map((c) => ({
      id: c.id,
      answer: (c.id === 'STUCK' ? false : ready) ? ('Y' as const) : ('N' as const),
      evidence: `${results.length} tool results since the last summary`,
    }));
    const answers = Object.fromEntries(criteria.map((c) => [c.id, c.answer === 'Y']));
    return { output: { criteria, decision: RUBRICS[rubric].decide(answers) } };
  };
}

/**
 * Records every probe `judge` answers: the request is exactly what the model would receive
 * (the context as last sent, then the rubric prompt), so the replay can bill it.
 */
export function recordingJudge(
  judge: ProbeJudge,
  asked: Array<{ request: ProbeRequest; output: unknown }>,
): ProbeJudge {
  return async (request) => {
    const answer = await judge(request);
    asked.push({ request, output: answer.output });
    return answer;
  };
}

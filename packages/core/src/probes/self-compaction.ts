import { z } from 'zod/v4';
import {
  type ProbeAnswer,
  type ProbeDecision,
  type ProbeJudge,
  type ProbeUsage,
  probeAnswerSchema,
  type TextCompletion,
} from '../contracts/host-model.ts';
import type { ProbeSchedule } from '../contracts/session-state.ts';
import { detachedCopy } from '../contracts/store.ts';
import type { Entry } from '../transcript/transcript.ts';
import { describeError } from '../util/errors.ts';
import { withTimeout } from '../util/timeout.ts';
import { probePrompt, type Rubric, type RubricName, resolveRubric, rubricOptionSchema } from './rubrics.ts';

const count = z.number().int().nonnegative();
const fnOf = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', { error: `expected ${what}` });

export const selfCompactSchema = z
  .object({
    rubric: rubricOptionSchema.default('general'),
    probeEvery: z.number().int().positive().default(4),
    minSteps: count.default(6),
    /** Absolute tokens; default a quarter of the input budget. */
    minTokens: count.optional(),
    cooldownSteps: count.default(4),
    maxCompactions: count.default(8),
    timeoutMs: z.number().int().positive().default(30_000),
    /** Continuation summaries by the host model (default) or by the configured `summarizer`. */
    modelSummaries: z.boolean().default(true),
    judge: fnOf<ProbeJudge>('a function (request) => Promise<{ output }>').optional(),
    complete: fnOf<TextCompletion>('a function (request) => Promise<string>').optional(),
  })
  .strict();

export type SelfCompactOptions = z.input<typeof selfCompactSchema>;

export interface ResolvedSelfCompact
  extends Omit<z.output<typeof selfCompactSchema>, 'rubric' | 'minTokens'> {
  rubric: Rubric;
  minTokens: number;
}

export function resolveSelfCompact(
  parsed: z.output<typeof selfCompactSchema>,
  inputBudget: number,
): ResolvedSelfCompact {
  return {
    ...parsed,
    rubric: resolveRubric(parsed.rubric as RubricName | Rubric),
    minTokens: parsed.minTokens ?? Math.floor(inputBudget * 0.25),
  };
}

/**
 * A closed unit of work: the latest assistant message either answered without tool calls or
 * came right after a batch of tool results it consumed; and every tool call has its result,
 * so the probe is never appended between a call and its result.
 */
export function atClosedUnit(entries: readonly Entry[]): boolean {
  let last = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i]!.role === 'assistant') {
      last = i;
      break;
    }
  }
  if (last < 0) return false;
  const assistant = entries[last]!;
  const calls = assistant.parts.filter((p) => p.type === 'tool-call').map((p) => (p as { id: string }).id);
  if (calls.length > 0) {
    const answered = new Set(
      entries
        .slice(last + 1)
        .flatMap((e) => e.parts)
        .filter((p) => p.type === 'tool-result')
        .map((p) => (p as { callId: string }).callId),
    );
    if (!calls.every((id) => answered.has(id))) return false;
    return last > 0 && entries[last - 1]!.role === 'tool';
  }
  return true;
}

export type ProbeSkip =
  | 'not-closed-unit'
  | 'min-steps'
  | 'min-tokens'
  | 'interval'
  | 'cooldown'
  | 'max-compactions'
  | 'no-judge';

/** Why a probe does not run this step (undefined: it runs). */
export function probeSkipReason(
  config: ResolvedSelfCompact,
  schedule: ProbeSchedule,
  tokens: number,
  entries: readonly Entry[],
  judge: ProbeJudge | undefined,
): ProbeSkip | undefined {
  if (!judge) return 'no-judge';
  if (schedule.compactions >= config.maxCompactions) return 'max-compactions';
  if (schedule.steps < config.minSteps) return 'min-steps';
  if (tokens < config.minTokens) return 'min-tokens';
  if (schedule.lastProbeStep !== undefined && schedule.steps - schedule.lastProbeStep < config.probeEvery)
    return 'interval';
  if (
    schedule.lastCompactionStep !== undefined &&
    schedule.steps - schedule.lastCompactionStep < config.cooldownSteps
  )
    return 'cooldown';
  if (!atClosedUnit(entries)) return 'not-closed-unit';
  return undefined;
}

export interface ProbeResult {
  decision: ProbeDecision;
  /** What the model itself said, when it answered. */
  modelDecision?: ProbeDecision;
  /** One per rubric criterion, in the rubric's order; evidence as the model quoted it (never blank). */
  answers: Array<{ id: string; answer: boolean; evidence: string }>;
  costTokens: number;
  /** Set when the probe failed (threw, timed out, unparseable, malformed): the decision is CONTINUE. */
  error?: string;
}

/**
 * Asks the host model the rubric's questions about the context (appended to a copy; nothing
 * enters the transcript) and applies the rubric's rule in code to its answers. Failure-open:
 * any error is a CONTINUE with the error recorded.
 */
export async function runProbe(
  config: ResolvedSelfCompact,
  judge: ProbeJudge,
  context: { entries: readonly Entry[]; system: string },
  estimateTokens: (prompt: string) => number,
): Promise<ProbeResult> {
  const prompt = probePrompt(config.rubric);
  let usage: ProbeUsage | undefined;
  try {
    const response = await withTimeout(
      (signal) =>
        judge({
          entries: detachedCopy(context.entries),
          system: context.system,
          prompt,
          schema: probeAnswerSchema,
          signal,
        }),
      config.timeoutMs,
      'the probe',
    );
    usage = response.usage;
    const raw = typeof response.output === 'string' ? JSON.parse(response.output) : response.output;
    const parsed = probeAnswerSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`unparseable probe answer: ${issue?.path.join('.')}: ${issue?.message}`);
    }
    return decide(config.rubric, parsed.data, cost(usage, estimateTokens(prompt)));
  } catch (error) {
    return {
      decision: 'CONTINUE',
      answers: [],
      costTokens: cost(usage, estimateTokens(prompt)),
      error: describeError(error),
    };
  }
}

function cost(usage: ProbeUsage | undefined, estimate: number): number {
  const reported = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
  return reported > 0 ? reported : estimate;
}

/**
 * The rubric's rule over the answers. An answer is only as good as its evidence: a rubric
 * criterion left unanswered, or answered without a quote (missing, empty, whitespace), makes
 * the whole answer malformed, so a model that says Y to everything without looking cannot
 * trigger a compaction.
 */
function decide(rubric: Rubric, answer: ProbeAnswer, costTokens: number): ProbeResult {
  const byId = new Map(answer.criteria.map((c) => [c.id.trim().toUpperCase(), c]));
  const answers = rubric.criteria.map((criterion) => {
    const given = byId.get(criterion.id.toUpperCase());
    if (!given) throw new Error(`malformed probe answer: criterion ${criterion.id} is not answered`);
    const evidence = given.evidence.trim();
    if (evidence === '') throw new Error(`malformed probe answer: criterion ${criterion.id} has no evidence`);
    return { id: criterion.id, answer: given.answer === 'Y', evidence };
  });
  const decision = rubric.decide(Object.fromEntries(answers.map((a) => [a.id, a.answer])));
  return { decision, modelDecision: answer.decision, answers, costTokens };
}

import { z } from 'zod/v4';
import type { ProbeDecision } from '../contracts/host-model.ts';

/** One yes/no question the model answers about its own trajectory, with evidence. */
export interface RubricCriterion {
  /** Upper-case id the model echoes back, e.g. `ANSWER`. */
  id: string;
  question: string;
}

/**
 * A self-compaction rubric: the questions, the decision rule applied in code to the model's
 * answers (the model's own decision is only compared with it), and what a continuation
 * summary of this kind of work must keep.
 */
export interface Rubric {
  id: string;
  criteria: readonly RubricCriterion[];
  /** The decision from the per-criterion answers (true = Y). */
  decide(answers: Readonly<Record<string, boolean>>): ProbeDecision;
  /** The rule in words, shown to the model with the questions. */
  rule: string;
  /** What the continuation summary of this work keeps (the summarizer's instruction). */
  summaryInstruction: string;
}

export type RubricName = 'general' | 'math' | 'search' | 'coding';

const yes = (answers: Readonly<Record<string, boolean>>, id: string) => answers[id] === true;

export const RUBRICS: Readonly<Record<RubricName, Rubric>> = {
  math: {
    id: 'math',
    criteria: [
      { id: 'ANSWER', question: 'Has a final answer to the problem been reached and stated explicitly?' },
      {
        id: 'STUCK',
        question:
          'Have the last attempts stopped making progress (repeating or abandoning the same approaches)?',
      },
      { id: 'HAS-NEXT', question: 'Is there a concrete, different next approach to try?' },
    ],
    decide: (a) => (yes(a, 'ANSWER') || (yes(a, 'STUCK') && yes(a, 'HAS-NEXT')) ? 'COMPRESS' : 'CONTINUE'),
    rule: 'COMPRESS if ANSWER, or if STUCK and HAS-NEXT; otherwise CONTINUE.',
    summaryInstruction:
      'Keep the key insights and the calculations that established them, the answer if one was found and whether it was verified (how), what was tried and failed, and what remains to do. Quote a found answer exactly.',
  },
  search: {
    id: 'search',
    criteria: [
      {
        id: 'CLOSED-UNIT',
        question:
          'Is the last search-and-read cycle complete, with no lookup pending whose raw result is still needed?',
      },
      {
        id: 'SUMMARIZABLE',
        question: 'Can everything found so far be stated as short facts, each with its source?',
      },
      { id: 'PROGRESS', question: 'Did the recent steps find new facts relevant to the original question?' },
      {
        id: 'STUCK',
        question: 'Have most of the recent searches found nothing new (repeating queries or dead ends)?',
      },
    ],
    decide: (a) =>
      yes(a, 'CLOSED-UNIT') && yes(a, 'SUMMARIZABLE') && yes(a, 'PROGRESS') && !yes(a, 'STUCK')
        ? 'COMPRESS'
        : 'CONTINUE',
    rule: 'COMPRESS if CLOSED-UNIT and SUMMARIZABLE and PROGRESS and not STUCK; otherwise CONTINUE.',
    summaryInstruction:
      'Keep only the facts useful for the original question, each with its source (URL, document, query). No speculation. Name dead ends as dead ends (queries and sources that gave nothing) so they are not searched again. Quote a found answer exactly.',
  },
  coding: {
    id: 'coding',
    criteria: [
      {
        id: 'CYCLE-CLOSED',
        question:
          'Is the last edit-and-test cycle closed (the tests or build ran after the last edit and their result is known)?',
      },
      { id: 'FILES-KNOWN', question: 'Can the files changed so far, and how, be listed?' },
      { id: 'COMMANDS-KNOWN', question: 'Can the commands run so far and their outcomes be listed?' },
      { id: 'TESTS-KNOWN', question: 'Are the failing tests, if any, identified by name?' },
      { id: 'NEXT-EDIT', question: 'Is the next edit (file and change) known?' },
    ],
    decide: (a) =>
      ['CYCLE-CLOSED', 'FILES-KNOWN', 'COMMANDS-KNOWN', 'TESTS-KNOWN', 'NEXT-EDIT'].every((id) => yes(a, id))
        ? 'COMPRESS'
        : 'CONTINUE',
    rule: 'COMPRESS if CYCLE-CLOSED, FILES-KNOWN, COMMANDS-KNOWN, TESTS-KNOWN and NEXT-EDIT are all Y; otherwise CONTINUE.',
    summaryInstruction:
      'Keep the files changed (path and what changed), the commands run and their outcomes, the failing tests by name with their error, decisions made, and the next edit. Quote exact paths, test names and error lines.',
  },
  general: {
    id: 'general',
    criteria: [
      {
        id: 'WORK-DONE',
        question: 'Has a piece of work been completed whose results a short summary would preserve?',
      },
      {
        id: 'NOT-MID',
        question:
          'Is nothing mid-derivation (no half-finished reasoning, and no result whose exact text is still needed)?',
      },
    ],
    decide: (a) => (yes(a, 'WORK-DONE') && yes(a, 'NOT-MID') ? 'COMPRESS' : 'CONTINUE'),
    rule: 'COMPRESS if WORK-DONE and NOT-MID; otherwise CONTINUE.',
    summaryInstruction:
      'Keep the results of the completed work, the decisions made and why, open questions, and the next step. Quote exact values, names and answers.',
  },
};

/** The probe message appended (to a copy of the context) after the conversation so far. */
export function probePrompt(rubric: Rubric): string {
  return [
    '[baton] Context check. Do not continue the task in this reply: answer only this question about the conversation so far.',
    'Should the work so far be compressed into a continuation summary now (COMPRESS), or is it better to keep the full context (CONTINUE)? Compressing a state that is mid-derivation loses work; not compressing a finished unit wastes context.',
    'Answer each criterion Y or N, with a short quote from the conversation as evidence:',
    ...rubric.criteria.map((c) => `- ${c.id}: ${c.question}`),
    `Decision rule: ${rubric.rule}`,
    'Reply with JSON: {"criteria":[{"id":"…","answer":"Y"|"N","evidence":"…"}],"decision":"COMPRESS"|"CONTINUE"}',
  ].join('\n');
}

const customRubricSchema = z.object({
  id: z.string().min(1),
  criteria: z.array(z.object({ id: z.string().min(1), question: z.string().min(1) })).min(1),
  decide: z.custom<Rubric['decide']>((v) => typeof v === 'function', {
    error: 'expected a function (answers) => decision',
  }),
  rule: z.string().min(1),
  summaryInstruction: z.string().min(1),
});

export const rubricOptionSchema = z.union([
  z.enum(['general', 'math', 'search', 'coding']),
  customRubricSchema,
]);

export function resolveRubric(rubric: RubricName | Rubric): Rubric {
  return typeof rubric === 'string' ? RUBRICS[rubric] : rubric;
}

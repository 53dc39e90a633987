import type { Entry, Part, ToolCallPart } from '@baton/core';
import { type Turn, textOf } from './smolagents-turns.ts';

/*
 * smolagents' turns as entries: what the model saw, with the tool structure smolagents
 * recorded. A tool-call message becomes the structured calls of the assistant turn before it
 * (its repr text is not repeated), the observation after it that call's result; a tool-response
 * with no call before it (a CodeAgent reply whose code could not be parsed) stays a user
 * message. This agrees with the hand conversions in the corpus
 * (`sessions/openai/*smolagents*.openai.json`). smolagents itself sends tool calls as assistant
 * text and observations as user text, so a real prompt counts a few tokens differently; the
 * reader says so in a note.
 */

/** An entry before its seq: the role and parts of one message. */
export interface Draft {
  role: Entry['role'];
  parts: Part[];
}

const isErrorText = (text: string) => /^(?:Call id: [^\n]*\n)?Error:/.test(text);
/**
 * Pairs calls with their observations (see the top of the file for the rules), and says in
 * notes what the pairing had to assume.
 *
 * @example
 * const { drafts, notes } = assembleTurns(recordTurns(steps, field).turns);
 */
export function assembleTurns(turns: readonly Turn[]): { drafts: Draft[]; notes: string[] } {
  const drafts: Draft[] = [];
  let strayResponses = 0;
  let sharedObservations = 0;
  let unanswered = 0;
  let movedImages = 0;
  /** The calls of the current step, the result drafts given so far, and its observation images. */
  let step: { calls: ToolCallPart[]; results: Draft[]; images: Draft[] } | undefined;
  const closeStep = (atEnd: boolean) => {
    if (!step) return;
    const missing = step.calls.slice(step.results.length);
    if (missing.length > 0 && step.results.length > 0) {
      // One observation for several calls of a step: the others answer with nothing.
      sharedObservations += missing.length;
      for (const call of missing) drafts.push(resultDraft(call, '', false));
    } else if (missing.length > 0 && !atEnd) unanswered += missing.length;
    drafts.push(...step.images);
    step = undefined;
  };
  const resultDraft = (call: ToolCallPart, text: string, isError: boolean): Draft => ({
    role: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: call.id,
        name: call.name,
        output: text,
        ...(isError ? { isError } : {}),
      },
    ],
  });
  let previous: Turn | undefined;
  for (const turn of turns) {
    if (turn.role === 'tool-response') {
      const text = textOf(turn.parts);
      if (!step) {
        strayResponses++;
        drafts.push({ role: 'user', parts: turn.parts });
      } else if (step.results.length < step.calls.length) {
        const draft = resultDraft(step.calls[step.results.length] as ToolCallPart, text, isErrorText(text));
        step.results.push(draft);
        drafts.push(draft);
      } else {
        // A second response to an answered step (an observation, then an error): the same result.
        const part = step.results.at(-1)?.parts[0];
        if (part?.type === 'tool-result') {
          part.output = `${String(part.output)}\n${text}`;
          if (isErrorText(text)) part.isError = true;
        }
      }
    } else if (turn.role === 'tool-call') {
      // The calls of the assistant turn right before; a step with no model output gets its own turn.
      const last = drafts.at(-1);
      const attach = previous?.role === 'assistant' && last?.role === 'assistant';
      if (!attach) closeStep(false);
      const target: Draft = attach ? (last as Draft) : { role: 'assistant', parts: [] };
      if (!attach) drafts.push(target);
      const known = new Set(target.parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : [])));
      target.parts.push(...turn.calls.filter((c) => !known.has(c.id)));
      const calls = target.parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
      step = { calls, results: [], images: [] };
    } else if (
      turn.role === 'user' &&
      step !== undefined &&
      step.results.length < step.calls.length &&
      turn.parts.every((p) => p.type === 'opaque')
    ) {
      // Observation images come between a call and its observation in smolagents; a result must
      // follow its call, so they move after the step's results.
      movedImages++;
      step.images.push({ role: 'user', parts: turn.parts });
    } else {
      closeStep(false);
      drafts.push({ role: turn.role, parts: [...turn.parts, ...turn.calls] });
      if (turn.role === 'assistant' && turn.calls.length > 0)
        step = { calls: turn.calls, results: [], images: [] };
    }
    previous = turn;
  }
  closeStep(true);
  const notes = [
    'smolagents sends tool calls to the model as assistant text and observations as user text; they are read as tool calls and results',
  ];
  if (strayResponses > 0)
    notes.push(
      `${strayResponses} tool response${strayResponses === 1 ? '' : 's'} with no call before ${strayResponses === 1 ? 'it' : 'them'} (code that could not be parsed) read as user messages`,
    );
  if (sharedObservations > 0)
    notes.push(
      `${sharedObservations} parallel tool call${sharedObservations === 1 ? '' : 's'} given an empty result: smolagents recorded one observation for all calls of a step (read as the first call's result)`,
    );
  if (unanswered > 0) notes.push(`${unanswered} tool calls have no recorded observation`);
  if (movedImages > 0)
    notes.push(`${movedImages} observation image messages placed after their step's tool results`);
  return { drafts, notes };
}

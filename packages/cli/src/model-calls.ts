import type { Entry } from '@baton/core';
import { SCRIPTED } from './readers/session-file.ts';

/**
 * Each model call of a recorded conversation: before every assistant message a model wrote
 * (a turn a reader marked scripted, like tau2's fixed greeting, was not a call).
 */
export function modelCalls(entries: readonly Entry[]): number[] {
  const points: number[] = [];
  entries.forEach((entry, i) => {
    if (entry.role === 'assistant' && i > 0 && entry.meta?.[SCRIPTED] !== true) points.push(i);
  });
  return points;
}

/** The newest messages that fit the budget, oldest dropped first: what a sliding window sends. */
export function deleteOldest(
  counts: readonly number[],
  end: number,
  budget: number,
  overhead: number,
): { tokens: number; first: number } {
  let tokens = overhead;
  let first = end;
  while (first > 0 && tokens + (counts[first - 1] as number) <= budget) {
    first--;
    tokens += counts[first] as number;
  }
  return { tokens, first };
}

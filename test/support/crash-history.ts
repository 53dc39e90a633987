import { type Entry, fromOpenAIChat } from '@baton/core';
import { filler } from '@baton/testing';

/** The history the crash test's child works through: tool rounds that compact often at a small window. */
export function crashHistory(rounds: number): Entry[] {
  return fromOpenAIChat([
    { role: 'user', content: 'Read every page of the audit log and keep a running total.' },
    ...Array.from({ length: rounds }, (_, i) => [
      {
        role: 'assistant' as const,
        content: i % 5 === 0 ? `Round ${i}: ${filler(60, i)}` : null,
        tool_calls: [
          { id: `c${i}`, type: 'function' as const, function: { name: 'read', arguments: `{"page":${i}}` } },
        ],
      },
      { role: 'tool' as const, tool_call_id: `c${i}`, content: `page ${i}\n${filler(300, i)}` },
    ]).flat(),
  ]);
}

export const CRASH_ROUNDS = 240;
export const CRASH_PLAN = 'Read all pages; the total so far is in the progress section.';
export const CRASH_WINDOW = 6_000;

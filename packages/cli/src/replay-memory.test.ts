import { fromOpenAIChat, type OpenAIMessage } from '@baton/core';
import { filler } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { replay, type StepRecord } from './replay.ts';

/** A long tool loop: each call reads a file whose content is unique to it. */
function longRun(calls: number): OpenAIMessage[] {
  const messages: OpenAIMessage[] = [
    { role: 'system', content: 'You fix bugs.' },
    { role: 'user', content: 'Fix the failing parser test.' },
  ];
  for (let i = 0; i < calls; i++) {
    const id = `call_${i}`;
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: 'read', arguments: `{"path":"src/m${i}.ts"}` } },
        ],
      },
      { role: 'tool', tool_call_id: id, content: `FILE_${i}_BODY ${filler(300, i)}` },
    );
  }
  messages.push({ role: 'assistant', content: 'Fixed.' });
  return messages;
}

const STEP_FIELDS = [
  'at',
  'baton',
  'billed',
  'cost',
  'deleteOldest',
  'events',
  'interval',
  'none',
  'notices',
  'outcome',
  'step',
];

describe('a long replay', () => {
  it('keeps counts per step, never the prompts or entries it replayed', async () => {
    const entries = fromOpenAIChat(longRun(300));
    const result = await replay(entries, { contextWindow: 8_000 });
    expect(result.steps).toHaveLength(301);
    expect(result.policies.find((p) => p.key === 'baton')?.compactions).toBeGreaterThan(5);
    for (const step of result.steps) {
      expect(Object.keys(step).sort()).toEqual(STEP_FIELDS);
      const kept = JSON.stringify(step satisfies StepRecord);
      // Counts and event summaries only: no message text, whatever the history's length.
      expect(kept).not.toMatch(/FILE_\d+_BODY|Fix the failing/);
      expect(kept.length).toBeLessThan(2_000);
    }
  });
});

import {
  entriesToPrompt,
  type PromptMessage,
  pairingViolation,
  promptToEntries,
} from '@baton/core/internals';
import { MessageList } from '@mastra/core/agent';
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import { describe, expect, it } from 'vitest';

const at = new Date('2026-11-30T00:00:00Z');
const stored: MastraDBMessage[] = [
  {
    id: 'u1',
    role: 'user',
    createdAt: at,
    threadId: 't',
    resourceId: 'r',
    content: { format: 2, parts: [{ type: 'text', text: 'Check the weather in Paris and Oslo.' }] },
  },
  {
    id: 'a1',
    role: 'assistant',
    createdAt: new Date(at.getTime() + 1),
    threadId: 't',
    resourceId: 'r',
    content: {
      format: 2,
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-invocation',
          toolInvocation: {
            state: 'result',
            toolCallId: 'c1',
            toolName: 'weather',
            args: { city: 'Paris' },
            result: { city: 'Paris', forecast: 'sunny' },
          },
        },
        { type: 'step-start' },
        {
          type: 'tool-invocation',
          toolInvocation: {
            state: 'result',
            toolCallId: 'c2',
            toolName: 'weather',
            args: { city: 'Oslo' },
            result: { city: 'Oslo', forecast: 'cold' },
          },
        },
        { type: 'text', text: 'Paris is sunny, Oslo is cold.' },
      ],
    },
  },
];

async function promptOf(messages: MastraDBMessage[]): Promise<PromptMessage[]> {
  const list = new MessageList({ threadId: 't', resourceId: 'r' });
  list.addSystem('You are a weather bot.');
  list.add(messages, 'memory');
  return (await list.get.all.aiV5.llmPrompt()) as unknown as PromptMessage[];
}

describe("Mastra's stored messages -> processLLMRequest prompt -> entries", () => {
  it('turns tool invocations into paired tool calls and results with the original values', async () => {
    const prompt = await promptOf(stored);
    const entries = promptToEntries(prompt);
    expect(entries.map((e) => e.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(pairingViolation(entries)).toBeUndefined();
    const results = entries.flatMap((e) => e.parts.filter((p) => p.type === 'tool-result'));
    expect(results).toEqual([
      { type: 'tool-result', callId: 'c1', name: 'weather', output: { city: 'Paris', forecast: 'sunny' } },
      { type: 'tool-result', callId: 'c2', name: 'weather', output: { city: 'Oslo', forecast: 'cold' } },
    ]);
    expect(entries[2]!.parts).toContainEqual({
      type: 'tool-call',
      id: 'c1',
      name: 'weather',
      input: { city: 'Paris' },
    });
  });

  it('round-trips untouched prompt messages as the very same objects, and gives stable keys across steps', async () => {
    const prompt = await promptOf(stored);
    const back = entriesToPrompt(promptToEntries(prompt));
    back.forEach((message, i) => {
      expect(message).toBe(prompt[i]);
    });
    // Mastra builds a new prompt every step: the same history gets the same keys.
    const again = promptToEntries(await promptOf(structuredClone(stored)));
    expect(again.map((e) => e.key)).toEqual(promptToEntries(prompt).map((e) => e.key));
  });
});

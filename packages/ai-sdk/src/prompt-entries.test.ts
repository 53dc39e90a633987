import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { promptToEntries } from '@baton/core/internals';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Entry, fromEntries, toEntries } from './index.ts';

const messages: ModelMessage[] = [
  { role: 'user', content: 'Read the config.' },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'app.json' } }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: { type: 'text', value: '{"port":8080}' },
      },
    ],
  },
  { role: 'user', content: 'Which port?' },
];

/** The prompt the SDK itself builds for a model: generateText on a MockLanguageModelV4. */
async function promptFromGenerateText(): Promise<LanguageModelV4Prompt> {
  const model = new MockLanguageModelV4({
    doGenerate: {
      content: [{ type: 'text', text: '8080' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: {
        inputTokens: { total: 40, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 2, text: 2, reasoning: undefined },
      },
      warnings: [],
    },
  });
  await generateText({ model, system: 'You read configs.', messages });
  const [call] = model.doGenerateCalls as [LanguageModelV4CallOptions];
  return call.prompt;
}

describe('toEntries', () => {
  it("takes the SDK's own prompt types without a cast", () => {
    expectTypeOf<LanguageModelV4Prompt>().toExtend<Parameters<typeof toEntries>[0]>();
    expectTypeOf<ModelMessage[]>().toExtend<Parameters<typeof toEntries>[0]>();
    expectTypeOf(toEntries).returns.toEqualTypeOf<Entry[]>();
    // Still typed, not `any`: what is no prompt is refused.
    expectTypeOf<Array<{ role: 'robot'; content: number }>>().not.toExtend<Parameters<typeof toEntries>[0]>();
    // The core's structural conversion alone refuses the SDK's prompt (why the adapter's exists).
    expectTypeOf<LanguageModelV4Prompt>().not.toExtend<Parameters<typeof promptToEntries>[0]>();
  });

  it('converts the prompt generateText sends a model, and fromEntries gives the same messages back', async () => {
    const prompt = await promptFromGenerateText();
    const entries = toEntries(prompt);
    expect(entries.map((e) => e.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(entries[0]?.parts).toEqual([{ type: 'text', text: 'You read configs.' }]);
    expect(entries[2]?.parts).toEqual([
      { type: 'tool-call', id: 'c1', name: 'read_file', input: { path: 'app.json' } },
    ]);
    expect(entries[3]?.parts).toEqual([
      { type: 'tool-result', callId: 'c1', name: 'read_file', output: '{"port":8080}' },
    ]);
    expect(entries[4]?.parts).toEqual([{ type: 'text', text: 'Which port?' }]);
    // Untouched entries go back as the very messages the SDK built.
    const back = fromEntries(entries);
    for (const [i, message] of back.entries()) expect(message).toBe(prompt[i]);
    // The SDK's ModelMessage[] (what prepareStep hands over) converts to the same conversation.
    const fromModelMessages = toEntries(messages);
    expect(fromModelMessages.map((e) => e.parts)).toEqual(entries.slice(1).map((e) => e.parts));
  });
});

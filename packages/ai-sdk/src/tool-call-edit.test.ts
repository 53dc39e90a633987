import { createAnthropic } from '@ai-sdk/anthropic';
import { anthropicWire, filler, providerRuleViolations } from '@baton/testing';
import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton, dropStaleToolTraffic } from './index.ts';

const tools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}\n${filler(1_200, path.length)}`,
  }),
};

/** The history as a host stores it between turns: assistant steps without the stream's custom parts. */
function stored(messages: ModelMessage[]): ModelMessage[] {
  return messages.map((message) =>
    message.role === 'assistant' && Array.isArray(message.content)
      ? { ...message, content: message.content.filter((part) => part.type !== 'custom') }
      : message,
  );
}

it('keeps each tool call with its results when the host changes the call messages between two calls (@ai-sdk/anthropic wire)', async () => {
  const wire = anthropicWire({
    script: ({ index }) =>
      index < 9
        ? {
            calls: [0, 1, 2].map((c) => ({ name: 'read_file', input: { path: `src/f${index}-${c}.ts` } })),
          }
        : { text: `answer ${index}` },
  });
  const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
  const session = createBaton({ contextWindow: 12_000, stages: [dropStaleToolTraffic()] }).session(
    'edited-calls',
  );
  const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: session.middleware });
  const messages: ModelMessage[] = [{ role: 'user', content: 'Read the sources, batch by batch.' }];
  const first = streamText({ model, tools, stopWhen: stepCountIs(12), messages });
  messages.push(...(await first.responseMessages));
  // The first turn compacted: old tool traffic went into a digest.
  expect(wire.requests.some((r) => JSON.stringify(r.body.messages).includes('Earlier tool calls'))).toBe(
    true,
  );
  const turnOne = wire.requests.length;

  // Next turn: the host re-sends its history with each assistant step changed (its custom parts
  // left out, as a UI round trip does), the tool results byte-identical.
  const next = [...stored(messages), { role: 'user' as const, content: 'Which file matters most?' }];
  const second = await generateText({ model, tools, stopWhen: stepCountIs(2), messages: next });
  expect(second.text).toMatch(/^answer/);
  expect(wire.requests.length).toBeGreaterThan(turnOne);
  // Every request, the ones after the change included, is one Anthropic accepts.
  for (const request of wire.requests)
    expect(providerRuleViolations('anthropic', request.body), `request ${request.index}`).toEqual([]);
});

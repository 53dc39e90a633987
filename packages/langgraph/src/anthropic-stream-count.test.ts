import { gptTokenizer, TokenCounter } from '@baton/core';
import { anthropicWire } from '@baton/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import { type AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromEntries, toEntries } from './message-conversion.ts';

const grep = tool(async ({ q }) => `match for ${q}`, {
  name: 'grep',
  description: 'Search the repository',
  schema: z.object({ q: z.string() }),
});

describe('@langchain/anthropic streamed replies, through its wire format', () => {
  it('counts 0 for the input_json_delta blocks a streamed reply keeps (the package never sends them) and hands the message back as it was', async () => {
    const wire = anthropicWire({
      script: () => ({
        text: 'Searching twice.',
        calls: [
          { name: 'grep', input: { q: 'router' } },
          { name: 'grep', input: { q: 'handler' } },
        ],
      }),
    });
    const replyOf = async (streaming: boolean) =>
      (await new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'k',
        streaming,
        clientOptions: { fetch: wire.fetch },
      })
        .bindTools([grep])
        .invoke([new HumanMessage('Where are requests routed?')])) as AIMessage;
    const streamed = await replyOf(true);
    const whole = await replyOf(false);
    // The premise: the streamed reply carries one delta block per tool call beside its tool_use blocks.
    const deltas = (streamed.content as Array<{ type: string }>).filter((b) => b.type === 'input_json_delta');
    expect(deltas).toHaveLength(2);

    const counter = new TokenCounter(gptTokenizer('o200k_base'), 512);
    const [streamedEntry] = toEntries([streamed]);
    const [wholeEntry] = toEntries([whole]);
    // Same text and calls; the deltas add nothing (they cost 512 tokens each before).
    expect(counter.raw(streamedEntry!)).toBe(counter.raw(wholeEntry!));

    // The next request: the message goes back as the same object, and the package leaves the deltas out.
    const history = [
      new HumanMessage('Where are requests routed?'),
      streamed,
      ...(streamed.tool_calls ?? []).map(
        (call) => new ToolMessage({ content: 'found', tool_call_id: call.id! }),
      ),
    ];
    const roundTripped = fromEntries(toEntries(history));
    expect(roundTripped[1]).toBe(streamed);
    await new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'k', clientOptions: { fetch: wire.fetch } })
      .bindTools([grep])
      .invoke(roundTripped);
    const sent = JSON.stringify(wire.requests.at(-1)!.body.messages);
    expect(sent).toContain('"tool_use"');
    expect(sent).not.toContain('input_json_delta');
  });
});

import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createOpenAI } from '@ai-sdk/openai';
import type { BatonOptions } from '@baton/core';
import { filler } from '@baton/testing';
import { generateText, type LanguageModel, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createBaton } from './index.ts';

/**
 * A minimal fetch answering as the provider's API does, recording each request body. Local to
 * this file: @baton/testing's provider wire kit speaks Anthropic Messages so far; these three
 * answers are the smallest each package parses.
 */
function recordingFetch(answer: (url: string) => unknown) {
  const bodies: Array<Record<string, unknown>> = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    return Response.json(answer(String(input)));
  };
  return { fetch, bodies };
}

const chatAnswer = () => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 },
});

const responsesAnswer = () => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  model: 'gpt-4o',
  status: 'completed',
  output: [
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    },
  ],
  usage: {
    input_tokens: 100,
    output_tokens: 1,
    total_tokens: 101,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  },
});

const converseAnswer = () => ({
  output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 100, outputTokens: 1, totalTokens: 101 },
});

const SYSTEM = `You answer from the handbook.\n${filler(6_000, 5)}`;
const messages: ModelMessage[] = [
  { role: 'user', content: 'First question.' },
  { role: 'assistant', content: 'First answer.' },
  { role: 'user', content: 'Second question.' },
];

async function call(inner: LanguageModel, options: Partial<BatonOptions> = {}, providerOptions = {}) {
  const session = createBaton({ contextWindow: 128_000, ...options }).session('chat-42');
  const model = wrapLanguageModel({ model: inner as never, middleware: session.middleware });
  await generateText({ model, system: SYSTEM, messages, providerOptions });
}

describe('prompt-cache keys through @ai-sdk/openai', () => {
  it.each([
    ['chat', 'chat'],
    ['responses', 'responses'],
  ] as const)(
    '%s: prompt_cache_key is the session id; promptCache: false sends none; the host’s own is kept',
    async (_name, api) => {
      const wire = recordingFetch(api === 'chat' ? chatAnswer : responsesAnswer);
      const openai = createOpenAI({ apiKey: 'test-key', fetch: wire.fetch });
      await call(openai[api]('gpt-4o'));
      await call(openai[api]('gpt-4o'), { promptCache: false });
      await call(openai[api]('gpt-4o'), {}, { openai: { promptCacheKey: 'tenant-acme' } });
      expect(wire.bodies.map((b) => b.prompt_cache_key)).toEqual(['chat-42', undefined, 'tenant-acme']);
      // Keys only: no Anthropic-style markers leak into an OpenAI body.
      expect(JSON.stringify(wire.bodies)).not.toMatch(/cache_control|cacheControl/);
    },
  );
});

describe('prompt-cache points through @ai-sdk/amazon-bedrock', () => {
  it('puts a cachePoint after the system prompt and after the newest message; none with promptCache: false', async () => {
    const wire = recordingFetch(converseAnswer);
    const bedrock = createAmazonBedrock({ apiKey: 'test-key', region: 'us-east-1', fetch: wire.fetch });
    await call(bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0'));
    await call(bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), { promptCache: false });
    // A model without prompt caching on Bedrock gets none: a cachePoint there is refused.
    await call(bedrock('meta.llama3-70b-instruct-v1:0'));
    const [on, off, llama] = wire.bodies as Array<{
      system: Array<Record<string, unknown>>;
      messages: Array<{ content: Array<Record<string, unknown>> }>;
    }>;
    expect(on!.system.map((b) => Object.keys(b)[0])).toEqual(['text', 'cachePoint']);
    expect(on!.messages.map((m) => m.content.map((b) => Object.keys(b)[0]))).toEqual([
      ['text'],
      ['text'],
      ['text', 'cachePoint'],
    ]);
    expect(on!.messages[2]!.content[1]).toEqual({ cachePoint: { type: 'default' } });
    expect(JSON.stringify(off)).not.toContain('cachePoint');
    expect(JSON.stringify(llama)).not.toContain('cachePoint');
  });
});

import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createOpenAI } from '@ai-sdk/openai';
import type { BatonOptions } from '@baton/core';
import { bedrockWire, filler, openaiChatWire, openaiResponsesWire } from '@baton/testing';
import { generateText, type LanguageModel, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createBaton } from './index.ts';

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
      const wire = api === 'chat' ? openaiChatWire() : openaiResponsesWire();
      const openai = createOpenAI({ apiKey: 'test-key', fetch: wire.fetch });
      await call(openai[api]('gpt-4o'));
      await call(openai[api]('gpt-4o'), { promptCache: false });
      await call(openai[api]('gpt-4o'), {}, { openai: { promptCacheKey: 'tenant-acme' } });
      const bodies = wire.requests.map((r) => r.body);
      expect(bodies.map((b) => b.prompt_cache_key)).toEqual(['chat-42', undefined, 'tenant-acme']);
      // Keys only: no Anthropic-style markers leak into an OpenAI body.
      expect(JSON.stringify(bodies)).not.toMatch(/cache_control|cacheControl/);
    },
  );
});

describe('prompt-cache points through @ai-sdk/amazon-bedrock', () => {
  it('puts a cachePoint after the system prompt and after the newest message; none with promptCache: false', async () => {
    const wire = bedrockWire();
    const bedrock = createAmazonBedrock({ apiKey: 'test-key', region: 'us-east-1', fetch: wire.fetch });
    await call(bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0'));
    await call(bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), { promptCache: false });
    // A model without prompt caching on Bedrock gets none: a cachePoint there is refused.
    await call(bedrock('meta.llama3-70b-instruct-v1:0'));
    const [on, off, llama] = wire.requests.map((r) => r.body) as Array<{
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

import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import {
  bedrockWire,
  geminiWire,
  openaiChatWire,
  openaiResponsesWire,
  type ProviderWire,
  type ProviderWireOptions,
  type WireFormat,
} from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { runWireLoop } from './wire-loop.test-support.ts';

type Fetch = ProviderWire['fetch'];

/** Each provider package on its wire stub; Bedrock only without streaming (the stub speaks no binary event stream). */
const providers: Array<{
  name: string;
  format: WireFormat;
  wire: (options: ProviderWireOptions) => ProviderWire;
  model: (fetch: Fetch) => LanguageModelV4;
  streams: boolean[];
}> = [
  {
    name: '@ai-sdk/openai chat',
    format: 'openai-chat',
    wire: openaiChatWire,
    model: (fetch) => createOpenAI({ apiKey: 'test-key', fetch }).chat('gpt-4o'),
    streams: [false, true],
  },
  {
    name: '@ai-sdk/openai responses',
    format: 'openai-responses',
    wire: openaiResponsesWire,
    model: (fetch) => createOpenAI({ apiKey: 'test-key', fetch }).responses('gpt-4o'),
    streams: [false, true],
  },
  {
    name: '@ai-sdk/google',
    format: 'gemini',
    wire: geminiWire,
    model: (fetch) => createGoogleGenerativeAI({ apiKey: 'test-key', fetch })('gemini-2.5-flash'),
    streams: [false, true],
  },
  {
    name: '@ai-sdk/amazon-bedrock',
    format: 'bedrock',
    wire: bedrockWire,
    model: (fetch) =>
      createAmazonBedrock({ region: 'us-east-1', accessKeyId: 'AKIDTEST', secretAccessKey: 'secret', fetch })(
        'anthropic.claude-3-5-haiku-20241022-v1:0',
      ),
    streams: [false],
  },
];

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  'AI SDK provider packages through their wire formats: a Claude Code session as an agent loop',
  () => {
    // Claude Code on a Go module: 5 user turns, 29 tool steps, outgrows both windows.
    const transcript = loadReplayCorpus().find((t) => t.name === 'coding-claude-code-gomod')!;
    for (const provider of providers)
      for (const contextWindow of [16_000, 32_000])
        for (const stream of provider.streams)
          it(`${provider.name} at ${contextWindow / 1000}k, ${stream ? 'streamText' : 'generateText'}`, async () => {
            const result = await runWireLoop({
              transcript,
              ...provider,
              contextWindow,
              maxOutputTokens: 2048,
              stream,
            });
            expect(result.failedTurns).toEqual([]);
            expect(result.violations).toEqual([]);
            expect(result.overWindow).toBe(0);
            expect(result.scripted.answered).toBe(result.scripted.total);
            expect(result.compactions).toBeGreaterThan(0);
          });
  },
);

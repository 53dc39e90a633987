import { describe, expect, it } from 'vitest';
import { type PromptMessage, promptToEntries } from './model-prompt.ts';
import { cacheIdiomOf, withPromptCacheHints } from './prompt-cache-hints.ts';

describe('cacheIdiomOf', () => {
  it.each([
    ['anthropic.messages', 'claude-sonnet-4-5', 'anthropic'],
    ['vertex.anthropic.messages', 'claude-sonnet-4-5@20250929', 'anthropic'],
    ['bedrock.anthropic.messages', 'claude-sonnet-4-5', 'anthropic'],
    ['amazon-bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'bedrock'],
    ['amazon-bedrock', 'amazon.nova-pro-v1:0', 'bedrock'],
    ['amazon-bedrock', 'meta.llama3-70b-instruct-v1:0', 'none'],
    ['openai.chat', 'gpt-4o', 'openai'],
    ['openai.responses', 'gpt-5', 'openai'],
    ['openai', 'gpt-4o', 'openai'],
    ['google.generative-ai', 'gemini-2.5-pro', 'none'],
    ['mock-provider', 'mock-model-id', 'none'],
  ])('%s %s -> %s', (provider, modelId, idiom) => {
    expect(cacheIdiomOf(provider, modelId)).toBe(idiom);
  });
});

describe('withPromptCacheHints', () => {
  it('marks copies: the host’s message objects are never changed', () => {
    const prompt: PromptMessage[] = [
      { role: 'system', content: 'rules' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ];
    const frozen = JSON.stringify(prompt);
    for (const message of prompt) Object.freeze(message);
    const entries = promptToEntries(prompt);
    const hinted = withPromptCacheHints(
      { prompt },
      { idiom: 'anthropic', sessionId: 's', entries, system: '', trailer: false },
    );
    expect(JSON.stringify(prompt)).toBe(frozen);
    expect(hinted.prompt.map((m) => m.providerOptions)).toEqual([
      { anthropic: { cacheControl: { type: 'ephemeral' } } },
      { anthropic: { cacheControl: { type: 'ephemeral' } } },
    ]);
  });

  it('places nothing on a prompt whose messages are not one per entry', () => {
    const prompt = [{ role: 'user' as const, content: 'hi' }];
    const hinted = withPromptCacheHints(
      { prompt },
      { idiom: 'anthropic', sessionId: 's', entries: [], system: '', trailer: false },
    );
    expect(hinted.prompt).toBe(prompt);
  });
});

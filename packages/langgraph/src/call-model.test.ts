import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { callOutputOf } from './call-model.ts';

const CANNOT = expect.stringContaining('set maxTokens on the model');

describe('callOutputOf: where a LangChain call goes and the max_tokens it sends', () => {
  it('reads ChatAnthropic, its default filled in at construction, through bindTools', () => {
    const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'test-key' });
    expect(callOutputOf(model)).toEqual({
      modelId: 'claude-sonnet-4-5',
      provider: 'langchain.anthropic',
      maxOutputTokens: 16_384,
      cannotCapOutput: CANNOT,
    });
    const bound = model.bindTools([{ name: 'ls', description: 'list', input_schema: { type: 'object' } }]);
    expect(callOutputOf(bound)).toMatchObject({ modelId: 'claude-sonnet-4-5', maxOutputTokens: 16_384 });
    const wide = new ChatAnthropic({ model: 'claude-opus-4-5', apiKey: 'k', maxTokens: 64_000 });
    expect(callOutputOf(wide).maxOutputTokens).toBe(64_000);
  });

  it('reads ChatOpenAI: no limit unless set (maxCompletionTokens too)', () => {
    expect(callOutputOf(new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'k' }))).toEqual({
      modelId: 'gpt-4.1',
      provider: 'langchain.openai',
      cannotCapOutput: CANNOT,
    });
    expect(
      callOutputOf(new ChatOpenAI({ model: 'o3', apiKey: 'k', maxCompletionTokens: 8_000 })),
    ).toMatchObject({
      maxOutputTokens: 8_000,
    });
    expect(callOutputOf(undefined)).toEqual({});
  });
});

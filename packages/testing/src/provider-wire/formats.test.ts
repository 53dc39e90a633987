import { describe, expect, it } from 'vitest';
import { bedrockWire } from './bedrock.ts';
import { geminiWire } from './gemini.ts';
import { providerRuleViolations } from './index.ts';
import { openaiChatCount, openaiChatWire } from './openai-chat.ts';
import { openaiResponsesWire } from './openai-responses.ts';

const post = (fetch: (url: string, init: RequestInit) => Promise<Response>, url: string, body: unknown) =>
  fetch(url, { method: 'POST', body: JSON.stringify(body) });

describe('the OpenAI, Gemini and Bedrock stubs refuse as their providers do', () => {
  it('OpenAI chat: 400 context_length_exceeded naming the messages and the completion', async () => {
    const body = { model: 'gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'hello there' }] };
    const input = openaiChatCount(body);
    const wire = openaiChatWire({ contextWindow: input + 99 });
    const response = await post(wire.fetch, 'https://api.openai.com/v1/chat/completions', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: `This model's maximum context length is ${input + 99} tokens. However, you requested ${input + 100} tokens (${input} in the messages, 100 in the completion). Please reduce the length of the messages or completion.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
  });

  it('OpenAI responses, Gemini and Bedrock: their codes and wordings', async () => {
    const responses = await post(openaiResponsesWire({ contextWindow: 10 }).fetch, 'https://x/v1/responses', {
      input: 'a long enough question for ten tokens, surely more than ten',
      max_output_tokens: 5,
    });
    expect(((await responses.json()) as { error: { code: string } }).error.code).toBe(
      'context_length_exceeded',
    );
    const gemini = await post(geminiWire({ contextWindow: 10 }).fetch, 'https://x/models/g:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'a long enough question for ten tokens, surely' }] }],
      generationConfig: { maxOutputTokens: 4 },
    });
    expect(await gemini.json()).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringMatching(
          /^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(6\)\.$/,
        ),
      },
    });
    const bedrock = await post(bedrockWire({ contextWindow: 10 }).fetch, 'https://x/model/m/converse', {
      messages: [{ role: 'user', content: [{ text: 'a long enough question for ten tokens, surely' }] }],
      inferenceConfig: { maxTokens: 4 },
    });
    expect(bedrock.status).toBe(400);
    expect(bedrock.headers.get('x-amzn-errortype')).toMatch(/^ValidationException/);
    expect(await bedrock.json()).toEqual({ message: 'Input is too long for requested model.' });
  });

  it('OpenAI chat streams usage in a last chunk only when stream_options.include_usage asks', async () => {
    const wire = openaiChatWire();
    const url = 'https://api.openai.com/v1/chat/completions';
    const messages = [{ role: 'user', content: 'hi' }];
    const without = await (await post(wire.fetch, url, { stream: true, messages })).text();
    const withUsage = await (
      await post(wire.fetch, url, { stream: true, stream_options: { include_usage: true }, messages })
    ).text();
    expect(without).not.toContain('"usage"');
    const chunks = withUsage.split('\n\n').filter(Boolean);
    expect(chunks.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(chunks.at(-2)!.slice(6))).toMatchObject({
      choices: [],
      usage: { prompt_tokens: wire.requests[1]!.inputTokens },
    });
  });
});

describe('providerRuleViolations on the other formats', () => {
  it('OpenAI chat: a call without its tool message, a tool message without its call', () => {
    const call = {
      role: 'assistant',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
    };
    expect(
      providerRuleViolations('openai-chat', {
        messages: [
          { role: 'user', content: 'go' },
          call,
          { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        ],
      }),
    ).toEqual([]);
    expect(
      providerRuleViolations('openai-chat', {
        messages: [{ role: 'user', content: 'go' }, call, { role: 'user', content: 'next' }],
      }),
    ).toHaveLength(1);
    expect(
      providerRuleViolations('openai-chat', {
        messages: [
          { role: 'user', content: 'go' },
          { role: 'tool', tool_call_id: 'c9', content: 'ok' },
        ],
      })[0],
    ).toMatch(/must be a response to a preceeding message/);
  });

  it('OpenAI responses: outputs and calls pair by call_id', () => {
    const call = { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' };
    const output = { type: 'function_call_output', call_id: 'c1', output: 'ok' };
    expect(
      providerRuleViolations('openai-responses', { input: [{ role: 'user', content: 'go' }, call, output] }),
    ).toEqual([]);
    expect(
      providerRuleViolations('openai-responses', { input: [{ role: 'user', content: 'go' }, call] }),
    ).toEqual(['No tool output found for function call c1.']);
    expect(providerRuleViolations('openai-responses', { input: [output] })).toEqual([
      'input[0]: No tool call found for function call output with call_id c1.',
    ]);
  });

  it('Gemini: a function call turn answered by as many responses, right after it', () => {
    const user = { role: 'user', parts: [{ text: 'go' }] };
    const call = { role: 'model', parts: [{ functionCall: { name: 'ls', args: {} } }] };
    const response = {
      role: 'user',
      parts: [{ functionResponse: { name: 'ls', response: { content: 'ok' } } }],
    };
    expect(providerRuleViolations('gemini', { contents: [user, call, response] })).toEqual([]);
    expect(providerRuleViolations('gemini', { contents: [user, call, user] })[0]).toMatch(
      /number of function response parts/,
    );
    expect(providerRuleViolations('gemini', { contents: [user, { role: 'model', parts: [] }] })[0]).toMatch(
      /must not be empty/,
    );
  });

  it('Bedrock: user first, roles alternate, toolUse answered by toolResult, no blank text', () => {
    const user = { role: 'user', content: [{ text: 'go' }] };
    const call = { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'ls', input: {} } }] };
    const result = {
      role: 'user',
      content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'ok' }] } }],
    };
    expect(providerRuleViolations('bedrock', { messages: [user, call, result] })).toEqual([]);
    expect(providerRuleViolations('bedrock', { messages: [call, result] })).toContain(
      'A conversation must start with a user message.',
    );
    expect(providerRuleViolations('bedrock', { messages: [user, call, user] })).toEqual([
      'Expected toolResult blocks at messages.2.content for the following Ids: t1',
    ]);
    expect(providerRuleViolations('bedrock', { messages: [user, user] })[0]).toMatch(/must alternate/);
    expect(
      providerRuleViolations('bedrock', { messages: [{ role: 'user', content: [{ text: ' ' }] }] })[0],
    ).toMatch(/is blank/);
  });
});

import { gptTokenizer } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { anthropicCount, anthropicRuleViolations, anthropicWire } from './anthropic.ts';

const post = (wire: ReturnType<typeof anthropicWire>, body: unknown) =>
  wire.fetch('https://api.anthropic.com/v1/messages', { method: 'POST', body: JSON.stringify(body) });

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });

describe('anthropicWire', () => {
  it('answers a tool call as JSON, with usage split into input / cache read / cache write, and records the request', async () => {
    const wire = anthropicWire({
      script: () => ({ calls: [{ name: 'read_file', input: { path: 'a.ts' } }] }),
      cacheUsage: ({ inputTokens }) => ({ cacheReadTokens: inputTokens - 10, cacheWriteTokens: 4 }),
    });
    const body = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [user('read a.ts please')] };
    const response = await post(wire, body);
    const json = (await response.json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      type: 'message',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'toolu_stub_1_0', name: 'read_file', input: { path: 'a.ts' } }],
      usage: {
        input_tokens: 6,
        cache_read_input_tokens: anthropicCount(body) - 10,
        cache_creation_input_tokens: 4,
      },
    });
    expect(wire.requests).toMatchObject([
      { index: 0, body, maxOutputTokens: 1024, stream: false, refused: false },
    ]);
  });

  it('answers with ids of its own idPrefix, so wires a host keeps calls across never repeat one', async () => {
    const script = () => ({ calls: [{ name: 'ls', input: {} }] });
    const body = { model: 'm', max_tokens: 10, messages: [user('hi')] };
    const idsOf = async (wire: ReturnType<typeof anthropicWire>) => {
      const json = (await (await post(wire, body)).json()) as { id: string; content: Array<{ id: string }> };
      return [json.id, json.content[0]!.id];
    };
    // A restarted process answering with the same ids would pair its new call with the old result.
    expect(await idsOf(anthropicWire({ script }))).toEqual(['msg_stub_1', 'toolu_stub_1_0']);
    expect(await idsOf(anthropicWire({ script, idPrefix: 'run-2' }))).toEqual([
      'msg_run-2_1',
      'toolu_run-2_1_0',
    ]);
    expect(() => anthropicWire({ idPrefix: 'a b' })).toThrow(/idPrefix: expected letters, digits and '-'/);
  });

  it('streams the events @ai-sdk/anthropic parses, in order, when the body asks stream: true', async () => {
    const wire = anthropicWire({ script: () => ({ text: 'on it', calls: [{ name: 'ls', input: {} }] }) });
    const response = await post(wire, { model: 'm', max_tokens: 10, stream: true, messages: [user('hi')] });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events).toEqual([
      'message_start',
      'ping',
      ...['content_block_start', 'content_block_delta', 'content_block_stop'],
      ...['content_block_start', 'content_block_delta', 'content_block_stop'],
      'message_delta',
      'message_stop',
    ]);
  });

  it("refuses over the window with Anthropic's two wordings, as a 400 invalid_request_error", async () => {
    const body = { model: 'm', max_tokens: 4096, messages: [user('word '.repeat(2_000))] };
    const input = anthropicCount(body);
    const fits = anthropicWire({ contextWindow: input + 4096 });
    expect((await post(fits, body)).status).toBe(200);
    const over = anthropicWire({ contextWindow: input + 4095 });
    const refused = await post(over, body);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `input length and \`max_tokens\` exceed context limit: ${input} + 4096 > ${input + 4095}, decrease input length or \`max_tokens\` and try again`,
      },
    });
    expect(over.requests[0]).toMatchObject({ refused: true, inputTokens: input });
    const tooLong = await post(anthropicWire({ contextWindow: input - 1 }), body);
    expect(((await tooLong.json()) as { error: { message: string } }).error.message).toBe(
      `prompt is too long: ${input} tokens > ${input - 1} maximum`,
    );
  });

  it("counts like a provider, not as a fixed multiple of Baton's o200k count", () => {
    const o200k = gptTokenizer('o200k_base');
    const texts = ['def f(x):\n    return x * 2\n', 'Die Katze schläft auf dem Sofa.', '{"a":[1,2,3]}'];
    const ratios = texts.map((text) => anthropicCount({ messages: [user(text)] }) / o200k.count(text));
    expect(new Set(ratios.map((r) => r.toFixed(2))).size).toBe(3);
  });
});

describe('anthropicRuleViolations', () => {
  const call = (id: string) => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name: 'ls', input: {} }],
  });
  const result = (id: string, extra: unknown[] = []) => ({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }, ...extra],
  });

  it('accepts a paired conversation, text after the results', () => {
    const body = { messages: [user('go'), call('a'), result('a', [{ type: 'text', text: 'note' }])] };
    expect(anthropicRuleViolations(body)).toEqual([]);
  });

  it('names each broken rule with the wording of Anthropic 400', () => {
    expect(anthropicRuleViolations({ messages: [call('a'), result('a')] })).toEqual([
      'messages: first message must use the "user" role',
    ]);
    expect(anthropicRuleViolations({ messages: [user('go'), call('a'), user('next')] })).toEqual([
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a',
    ]);
    expect(anthropicRuleViolations({ messages: [user('go'), call('a'), result('b')] })).toEqual([
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a',
      'messages.2: unexpected `tool_use_id` found in `tool_result` blocks: b',
    ]);
    const textFirst = { role: 'user', content: [{ type: 'text', text: 'x' }, ...result('a').content] };
    expect(anthropicRuleViolations({ messages: [user('go'), call('a'), textFirst] })).toEqual([
      'messages.2: tool_result blocks must come first in the content array',
    ]);
    expect(anthropicRuleViolations({ system: [{ type: 'text', text: '' }], messages: [user('')] })).toEqual([
      'system: text content blocks must be non-empty',
      'messages.0: text content blocks must be non-empty',
    ]);
    expect(anthropicRuleViolations({ messages: [{ role: 'user', content: [] }] })).toEqual([
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    ]);
  });
});

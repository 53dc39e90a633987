import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { readSession } from '../formats.ts';
import { original, originalLines, skipWithoutCorpus } from './corpus.test-support.ts';
import { runCli, scratchDir, textFile } from './fixtures.test-support.ts';
import { openAIResponsesReader } from './openai-responses.ts';

const CODEX = 'coding-codex-vscode-gomod.jsonl';
const skipCorpus = skipWithoutCorpus('Responses fixture test');
const dir = scratchDir('responses');

const read = (value: unknown) => readSession(textFile('responses.json', JSON.stringify(value)));
const roles = (entries: readonly Entry[]) => entries.map((e) => e.role);

const user = (text: string) => ({ role: 'user', content: text });
const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
const call = {
  type: 'function_call',
  id: 'fc_1',
  status: 'completed',
  call_id: 'call_1',
  name: 'get_weather',
  arguments: '{"city":"Paris"}',
};
const result = { type: 'function_call_output', call_id: 'call_1', output: '18°C, clear' };
const answer = {
  type: 'message',
  id: 'msg_1',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'It is 18°C and clear in Paris.', annotations: [] }],
};

describe('openai-responses reader', () => {
  it('reads one exchange: instructions, input, output', () => {
    const transcript = read({
      model: 'gpt-4.1',
      instructions: 'You are a weather bot.',
      input: [user('Weather in Paris?'), call, result],
      output: [answer],
    });
    expect(transcript.format).toBe('openai-responses');
    expect(roles(transcript.entries)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(transcript.entries[3]?.parts).toEqual([
      { type: 'tool-result', callId: 'call_1', name: 'get_weather', output: '18°C, clear' },
    ]);
    // A string input is one user message.
    expect(roles(read({ input: 'Hello', output: [answer] }).entries)).toEqual(['user', 'assistant']);
  });

  it('reads a request log without counting the re-sent history twice, whether clients re-send it or chain ids', () => {
    // Record 2 re-sends record 1's conversation (ids and reasoning dropped, text as a plain string).
    const resend = [
      { input: [user('Weather in Paris?')], output: [reasoning, call] },
      {
        input: [user('Weather in Paris?'), { ...call, id: undefined, status: undefined }, result],
        output: [answer],
      },
      {
        input: [
          user('Weather in Paris?'),
          call,
          result,
          { role: 'assistant', content: 'It is 18°C and clear in Paris.' },
          user('And Rome?'),
        ],
        output: [{ ...answer, content: [{ type: 'output_text', text: 'No data for Rome.' }] }],
      },
    ];
    const log = read(resend);
    expect(roles(log.entries)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(log.notes).toContain(
      '2 of 3 records re-send the conversation so far: only the items each adds are read',
    );
    // A client chaining previous_response_id sends only the new items.
    const chained = [
      { input: [user('Weather in Paris?')], output: [call] },
      { request: { input: [result], previous_response_id: 'resp_1' }, response: { output: [answer] } },
    ];
    expect(roles(read(chained).entries)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('reads a plain array of items', () => {
    const { entries } = read([user('Weather in Paris?'), call, result, answer]);
    expect(roles(entries)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('refuses a malformed item naming where it is', () => {
    expect(() =>
      read({ input: [user('hi')], output: [{ type: 'function_call', name: 'f', arguments: '{}' }] }),
    ).toThrow('Responses output[0]: a function_call item has no call_id or no name');
    expect(() => read([user('a'), { type: 'message', role: 'assistant', content: 7 }])).toThrow(
      'Responses item 1: content is neither a string nor a list of parts',
    );
  });

  it('claims Responses files only: chat, AI SDK, LangChain and Anthropic messages go to their readers', () => {
    const mismatch = (value: unknown) =>
      openAIResponsesReader.mismatch(textFile('f.json', JSON.stringify(value)));
    expect(mismatch([user('hi'), { role: 'assistant', content: 'hello' }])).toBe(
      'an array of role/content messages without a typed Responses item',
    );
    expect(mismatch({ messages: [user('hi')] })).toBe('an object without an input list (keys: messages)');
    expect(mismatch([{ type: 'human', data: { content: 'hi' } }])).toBe(
      'an array whose item 0 is not a Responses item (message, function_call, ...)',
    );
    expect(mismatch({ input: 'hi' })).toBe('an object whose input is not a list of Responses items');
    const chat = [user('hi'), { role: 'assistant', content: 'hello' }];
    expect(readSession(textFile('chat.json', JSON.stringify(chat))).format).toBe('openai-chat');
    const anthropic = {
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    };
    expect(readSession(textFile('a.json', JSON.stringify(anthropic))).format).toBe('anthropic');
  });
});

describe.skipIf(skipCorpus)('openai-responses reader on real items', () => {
  it('the Codex rollout’s items as one { input } exchange read to the same entries, and replay through the CLI', async () => {
    const items = originalLines<{ type: string; payload: unknown }>(CODEX)
      .filter((l) => l.type === 'response_item')
      .map((l) => l.payload);
    const path = join(dir, 'codex-items.json');
    writeFileSync(path, JSON.stringify({ instructions: null, input: items }));
    const transcript = readSession(path);
    expect(transcript.format).toBe('openai-responses');
    expect(transcript.entries).toEqual(readSession(original(CODEX)).entries);
    const out = join(dir, 'codex-items.html');
    const run = await runCli(['replay', path, '--window', '16k', '--report', out]);
    expect(run.code, run.output).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('19 model calls');
  });
});

import { createBaton, TokenCounter } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { pngBase64 } from './fixtures.test-support.ts';
import { responsesItemsToEntries } from './responses-items.ts';
import { TranscriptFormatError } from './session-file.ts';

const convert = (items: unknown[], instructions?: string) =>
  responsesItemsToEntries(
    items.map((item, index) => ({ item, where: `item ${index}` })),
    { instructions },
  );

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const said = (text: string) => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text }],
});
const call = (id: string, name: string, args: string) => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: args,
});
const output = (id: string, out: unknown) => ({ type: 'function_call_output', call_id: id, output: out });

describe('responsesItemsToEntries', () => {
  it('makes one assistant entry of each model response, one tool entry per output, instructions first', () => {
    const { entries } = convert(
      [
        {
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: 'Sandbox: read-only.' }],
        },
        user('Where is go.mod?'),
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Look for it.' }],
          encrypted_content: null,
        },
        said('Searching.'),
        call('c1', 'shell', '{"command":["ls"]}'),
        call('c2', 'shell', '{"command": ["pwd"]}'),
        output('c1', 'go.mod\nmain.go'),
        output('c2', '/repo'),
        said('It is at the root.'),
      ],
      'You are Codex.',
    );
    expect(entries.map((e) => e.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(entries[0]?.parts).toEqual([{ type: 'text', text: 'You are Codex.' }]);
    expect(entries[3]?.parts).toEqual([
      {
        type: 'opaque',
        kind: 'reasoning',
        value: {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Look for it.' }],
          encrypted_content: null,
        },
        text: 'Look for it.',
      },
      { type: 'text', text: 'Searching.' },
      { type: 'tool-call', id: 'c1', name: 'shell', input: { command: ['ls'] } },
      // Arguments that would not serialize back to the same bytes stay the raw string.
      { type: 'tool-call', id: 'c2', name: 'shell', input: '{"command": ["pwd"]}' },
    ]);
    expect(entries[5]?.parts).toEqual([
      { type: 'tool-result', callId: 'c2', name: 'shell', output: '/repo' },
    ]);
    // Call ids are not message ids: keys are seq-hash.
    expect(entries[4]?.key).toMatch(/^4-/);
  });

  it('keeps a tool output’s text as the result and its images beside it, never their base64 as text', () => {
    const png = pngBase64(1, 1);
    const { entries, notes } = convert([
      user('Take a screenshot.'),
      call('c1', 'screenshot', '{}'),
      output('c1', [
        { type: 'input_text', text: 'Taken.' },
        { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'low' },
        { type: 'input_image', image_url: 'https://example.com/big.png' },
      ]),
      { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
      {
        type: 'custom_tool_call_output',
        call_id: 'c2',
        output: { content: 'patch rejected', success: false },
      },
    ]);
    expect(entries[2]?.parts).toEqual([
      { type: 'tool-result', callId: 'c1', name: 'screenshot', output: 'Taken.' },
      expect.objectContaining({ type: 'opaque', kind: 'image', tokens: 85 }),
      expect.objectContaining({ type: 'opaque', kind: 'image' }),
    ]);
    expect(entries[2]?.parts[2]).not.toHaveProperty('tokens');
    expect(notes).toContain(
      '1 images of unknown size (a URL or file id, or not PNG/JPEG/GIF/WebP) counted at the default opaque cost',
    );
    expect(entries[3]?.parts).toEqual([
      { type: 'tool-call', id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
    ]);
    expect(entries[4]?.parts).toEqual([
      { type: 'tool-result', callId: 'c2', name: 'apply_patch', output: 'patch rejected', isError: true },
    ]);
  });

  it('counts reasoning at its summary, hosted tool calls as text, and notes what it skipped', () => {
    const { entries, notes } = convert([
      user('Latest Go?'),
      { type: 'reasoning', summary: [], encrypted_content: 'gAAAAB'.repeat(500) },
      {
        type: 'web_search_call',
        id: 'ws_1',
        status: 'completed',
        action: { type: 'search', query: 'latest go' },
      },
      { type: 'item_reference', id: 'msg_9' },
      said('Go 1.25.1.'),
    ]);
    expect(entries.map((e) => e.role)).toEqual(['user', 'assistant']);
    const counter = new TokenCounter(createBaton({ contextWindow: 16_000 }).options.tokenizer, 512);
    const [reasoning, search] = entries[1]!.parts;
    expect(reasoning).toMatchObject({ kind: 'reasoning', text: '' });
    expect(search).toMatchObject({
      kind: 'web_search_call',
      text: '{"type":"web_search_call","action":{"type":"search","query":"latest go"}}',
    });
    // The 3000-character encrypted blob costs nothing; the search query costs a few tokens.
    expect(counter.raw(entries[1]!)).toBeLessThan(40);
    expect(notes).toEqual([
      '1 reasoning items kept, counted at their summary text (0 have one); the encrypted reasoning of 1 is not counted (its size is unknown)',
      'items skipped: item_reference 1 (not model input Baton can count)',
    ]);
  });

  it('refuses a malformed item naming where it is', () => {
    expect(() => convert([user('hi'), { type: 'function_call', name: 'shell' }])).toThrow(
      new TranscriptFormatError('item 1: a function_call item has no call_id or no name'),
    );
    expect(() => convert([{ type: 'message', role: 'critic', content: 'x' }])).toThrow(
      'item 0: a message has role "critic"',
    );
    expect(() => convert([{ type: 'message', role: 'user', content: [{ type: 'input_text' }] }])).toThrow(
      'item 0: content part 0 (input_text) has no text',
    );
  });
});

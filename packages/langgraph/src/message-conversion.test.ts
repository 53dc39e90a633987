import { isProviderCompaction } from '@baton/core';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { fromEntries, toEntries } from './message-conversion.ts';

const messages = [
  new SystemMessage({ content: 'sys', id: 'm0' }),
  new HumanMessage({
    content: [
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ],
    id: 'm1',
  }),
  new AIMessage({
    content: 'reading',
    id: 'm2',
    tool_calls: [{ id: 'a', name: 'grep', args: { q: 'x' }, type: 'tool_call' }],
    additional_kwargs: { provider_field: 1 },
  }),
  new ToolMessage({ content: 'match', tool_call_id: 'a', name: 'grep', id: 'm3', status: 'error' }),
];

describe('LangChain messages <-> entries', () => {
  it('keys by message id and round-trips untouched messages as the same objects', () => {
    const entries = toEntries(messages);
    expect(entries.map((e) => e.key)).toEqual(['m0', 'm1', 'm2', 'm3']);
    fromEntries(entries).forEach((m, i) => {
      expect(m).toBe(messages[i]);
    });
  });

  it('maps tool calls, tool results (with error status) and non-text blocks', () => {
    const [, user, assistant, toolResult] = toEntries(messages);
    expect(user!.parts[1]).toMatchObject({ type: 'opaque', kind: 'image_url' });
    expect(assistant!.parts).toEqual([
      { type: 'text', text: 'reading' },
      { type: 'tool-call', id: 'a', name: 'grep', input: { q: 'x' } },
    ]);
    expect(toolResult!.parts).toEqual([
      { type: 'tool-result', callId: 'a', name: 'grep', output: 'match', isError: true },
    ]);
  });

  it('rebuilds changed entries as messages of the same kind', () => {
    const rebuilt = fromEntries(toEntries(messages).map((e) => structuredClone(e)));
    expect(rebuilt.map((m) => m.type)).toEqual(['system', 'human', 'ai', 'tool']);
    expect((rebuilt[2] as AIMessage).tool_calls).toEqual([
      { id: 'a', name: 'grep', args: { q: 'x' }, type: 'tool_call' },
    ]);
    expect((rebuilt[3] as ToolMessage).tool_call_id).toBe('a');
    expect((rebuilt[3] as ToolMessage).status).toBe('error');
  });

  it("carries ChatAnthropic's compaction block verbatim, counted by its text and protected from eviction", () => {
    const block = {
      type: 'compaction',
      content: 'Earlier: parser.ts:88 throws on empty lines.',
      signature: 'sig',
    };
    const [entry] = toEntries([
      new AIMessage({ content: [block, { type: 'text', text: 'go on' }], id: 'c1' }),
    ]);
    expect(entry!.parts[0]).toEqual({
      type: 'opaque',
      kind: 'compaction',
      value: block,
      text: block.content,
    });
    expect(isProviderCompaction(entry!.parts[0]!)).toBe(true);
  });
});

describe('the same messages at the next call', () => {
  const history = () => [
    new HumanMessage({ content: 'audit', id: 'h1' }),
    new AIMessage({
      content: '',
      id: 'a1',
      tool_calls: [{ id: 'c1', name: 'grep', args: { q: 'x' }, type: 'tool_call' }],
    }),
    new ToolMessage({ content: 'match', tool_call_id: 'c1', name: 'grep', id: 't1' }),
    new HumanMessage('no id'),
  ];

  it('are the same entries, so the session passes over the new messages only', () => {
    const messages = history();
    const first = toEntries(messages);
    const next = toEntries([...messages, new AIMessage('done')]);
    first.forEach((entry, i) => {
      expect(next[i]).toBe(entry);
    });
  });

  it('are converted again when a host reassigned a field in place, or moved them', () => {
    const messages = history();
    const first = toEntries(messages);
    const tool = messages[2] as ToolMessage;
    tool.content = 'edited';
    tool.status = 'error';
    const edited = toEntries(messages);
    expect(edited[2]).not.toBe(first[2]);
    expect(edited[2]!.parts[0]).toMatchObject({ output: 'edited', isError: true });
    (messages[1] as AIMessage).tool_calls = [{ id: 'c1', name: 'find', args: {}, type: 'tool_call' }];
    expect(toEntries(messages)[1]!.parts).toEqual([{ type: 'tool-call', id: 'c1', name: 'find', input: {} }]);
    // The message without an id is keyed by position: one position later, a new entry and key.
    const moved = toEntries([new HumanMessage('first'), ...messages]);
    expect(moved[4]).not.toBe(first[3]);
    expect(moved[4]!.seq).toBe(4);
    expect(moved[4]!.key).not.toBe(first[3]!.key);
  });
});

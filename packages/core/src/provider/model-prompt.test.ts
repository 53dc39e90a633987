import { describe, expect, it } from 'vitest';
import { hiddenPromptTokens } from '../budget/hidden-prompt.ts';
import { createBaton } from '../session/baton.ts';
import { TokenCounter } from '../tokens/token-counter.ts';
import { gptTokenizer } from '../tokens/tokenizer.ts';
import {
  entriesToPrompt as fromEntries,
  type PromptMessage,
  promptToEntries as toEntries,
} from './model-prompt.ts';

const prompt: PromptMessage[] = [
  { role: 'system', content: 'sys', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'look' },
      { type: 'file', data: { type: 'data', data: 'AAAA' }, mediaType: 'image/png' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'thinking about it' },
      { type: 'tool-call', toolCallId: 'a', toolName: 'grep', input: { q: 'x' } },
      {
        type: 'tool-call',
        toolCallId: 'w',
        toolName: 'web_search',
        input: { q: 'y' },
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: 'w',
        toolName: 'web_search',
        output: { type: 'json', value: { hits: 3 } },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'a',
        toolName: 'grep',
        output: { type: 'json', value: { lines: ['x'] } },
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
];

describe('model prompt (AI SDK provider spec) <-> entries', () => {
  it('counts 0 for the parts no provider package sends, keeping them verbatim', () => {
    const counter = new TokenCounter(gptTokenizer(), 512);
    const text = { type: 'text', text: 'done' };
    const step = (extra: Array<{ type: string; [field: string]: unknown }>): PromptMessage[] => [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [text, ...extra] },
    ];
    const bare = counter.raw(toEntries(step([]))[1]!);
    const marker = {
      type: 'custom',
      kind: 'anthropic.message_start',
      providerOptions: { anthropic: { id: 'm' } },
    };
    const approval = { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' };
    const withUnsent = step([marker, approval]);
    const [, assistant] = toEntries(withUnsent);
    expect(counter.raw(assistant!)).toBe(bare);
    expect(fromEntries([assistant!])[0]).toBe(withUnsent[1]);
    expect(assistant!.parts[1]).toMatchObject({ type: 'opaque', kind: 'custom', value: marker, tokens: 0 });
    // A kind a provider package does send (Anthropic's fallback block) is counted.
    const fallback = {
      type: 'custom',
      kind: 'anthropic.fallback',
      providerOptions: {
        anthropic: { from: { model: 'claude-opus-4-5' }, to: { model: 'claude-sonnet-4-5' } },
      },
    };
    expect(counter.raw(toEntries(step([fallback]))[1]!)).toBeGreaterThan(bare + 10);
    // An approval answer the SDK drops (not provider-executed) costs nothing; a provider-executed one a little.
    const answer = (providerExecuted: boolean): PromptMessage => ({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true, providerExecuted }],
    });
    expect(counter.raw(toEntries([answer(false)])[0]!)).toBe(4);
    expect(counter.raw(toEntries([answer(true)])[0]!)).toBeLessThan(30);
  });

  it("adds Claude's tool-use system prompt to requests with tools", () => {
    expect(hiddenPromptTokens('claude-sonnet-4-5', true)).toBe(346);
    expect(hiddenPromptTokens('us.anthropic.claude-3-5-haiku-20241022-v1:0', true)).toBe(264);
    expect(hiddenPromptTokens('claude-sonnet-4-5', false)).toBe(0);
    expect(hiddenPromptTokens('gpt-4o', true)).toBe(0);
    expect(hiddenPromptTokens(undefined, true)).toBe(0);
  });

  it('round-trips untouched messages as the same objects', () => {
    const entries = toEntries(prompt);
    const back = fromEntries(entries);
    back.forEach((m, i) => {
      expect(m).toBe(prompt[i]);
    });
  });

  it('keeps reasoning, files and provider-executed tool traffic as opaque parts outside tool pairing', () => {
    const entries = toEntries(prompt);
    expect(entries[2]!.parts.map((p) => p.type)).toEqual(['opaque', 'tool-call', 'opaque', 'opaque']);
    expect(entries[1]!.parts[1]).toMatchObject({ type: 'opaque', kind: 'file' });
    expect(entries[3]!.parts[0]).toMatchObject({
      type: 'tool-result',
      callId: 'a',
      output: { lines: ['x'] },
    });
  });

  it('rebuilds changed messages with their providerOptions and the original tool output shape', () => {
    const entries = toEntries(prompt).map((e) => structuredClone(e));
    const rebuilt = fromEntries(entries);
    expect(rebuilt[0]).toEqual({
      role: 'system',
      content: 'sys',
      providerOptions: prompt[0]!.providerOptions,
    });
    expect(rebuilt[2]!.content).toEqual(prompt[2]!.content);
    expect((rebuilt[3]!.content as unknown as { output: unknown }[])[0]!.output).toEqual({
      type: 'text',
      value: '{"lines":["x"]}',
    });
  });

  it('gives the same keys on every call for a history rebuilt as new objects', async () => {
    const a = toEntries(structuredClone(prompt));
    const b = toEntries(structuredClone(prompt));
    expect(a.map((e) => e.key)).toEqual(b.map((e) => e.key));
    const prepared = await createBaton({ contextWindow: 50_000 }).session('s').prepare({ entries: a });
    expect(prepared.outcome).toBe('ok');
  });

  it("keys by content when asked, so a window that drops its oldest messages keeps the others' keys", () => {
    const window: PromptMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    const before = toEntries(window, undefined, 'content').map((e) => e.key);
    const slid = toEntries(window.slice(2), undefined, 'content').map((e) => e.key);
    expect(new Set(before).size).toBe(4); // the repeated 'ok' is told apart by its occurrence
    expect(slid[0]).toBe(before[2]);
    // By position (the default), every key moves with the slide.
    const positional = toEntries(window).map((e) => e.key);
    expect(toEntries(window.slice(2))[0]?.key).not.toBe(positional[2]);
  });
});

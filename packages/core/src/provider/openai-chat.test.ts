import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromOpenAIChat, type OpenAIMessage, toOpenAIChat } from './openai-chat.ts';

const corpusDir = new URL('../../../../../shared/corpus/transcripts/', import.meta.url);
const corpus = existsSync(corpusDir)
  ? readdirSync(corpusDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => ({
        name: f,
        messages: (JSON.parse(readFileSync(new URL(f, corpusDir), 'utf8')) as { messages: OpenAIMessage[] })
          .messages,
      }))
  : [];

// Core cannot depend on the test fixtures package (it depends on core), so the CI rule of
// test/support/skip-unless.ts is written out here: never skipped under CI=true, never silently.
const corpusMissing = corpus.length === 0;
if (corpusMissing && process.env.CI) throw new Error(`CI=true and ${corpusDir.pathname} is missing`);
if (corpusMissing) console.warn(`[baton] [test] skipped: ${corpusDir.pathname} is missing`);

describe('fromOpenAIChat / toOpenAIChat', () => {
  it.skipIf(corpusMissing)('round-trips every corpus transcript by reference and field for field', () => {
    for (const { messages } of corpus) {
      const entries = fromOpenAIChat(messages);
      const back = toOpenAIChat(entries);
      expect(back.length).toBe(messages.length);
      for (const [i, m] of back.entries()) expect(m).toBe(messages[i]);
      // Copies of the entries (no host reference) rebuild equal messages.
      const rebuilt = toOpenAIChat(entries.map((e) => structuredClone(e)));
      expect(rebuilt).toEqual(messages);
    }
  });

  it('keeps tool-call arguments byte-exact, parsed only when re-serialising is lossless', () => {
    const messages: OpenAIMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          { id: 'b', type: 'function', function: { name: 'g', arguments: '{ "x": 1 }' } },
          { id: 'c', type: 'function', function: { name: 'h', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'one' },
      { role: 'tool', tool_call_id: 'b', content: 'two' },
      { role: 'tool', tool_call_id: 'c', content: 'three' },
    ];
    const entries = fromOpenAIChat(messages);
    const calls = entries[1]!.parts;
    expect(calls).toEqual([
      { type: 'tool-call', id: 'a', name: 'f', input: { x: 1 } },
      { type: 'tool-call', id: 'b', name: 'g', input: '{ "x": 1 }' },
      { type: 'tool-call', id: 'c', name: 'h', input: 'not json' },
    ]);
    expect(entries[3]!.parts[0]).toMatchObject({
      type: 'tool-result',
      callId: 'b',
      name: 'g',
      output: 'two',
    });
    expect(toOpenAIChat(entries.map((e) => structuredClone(e)))).toEqual(messages);
  });

  it('maps developer messages to system entries and content arrays with images to opaque parts', () => {
    const messages: OpenAIMessage[] = [
      { role: 'developer', content: 'rules' },
      {
        role: 'user',
        name: 'ada',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ];
    const entries = fromOpenAIChat(messages);
    expect(entries[0]!.role).toBe('system');
    expect(entries[1]!.parts[1]).toMatchObject({ type: 'opaque', kind: 'image_url' });
    expect(toOpenAIChat(entries.map((e) => structuredClone(e)))).toEqual(messages);
  });

  it('gives stable keys and reuses entries for messages it has converted before', () => {
    const messages: OpenAIMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ];
    const first = fromOpenAIChat(messages);
    const second = fromOpenAIChat([...messages, { role: 'user', content: 'c' }]);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    const copy = fromOpenAIChat(structuredClone(messages));
    expect(copy.map((e) => e.key)).toEqual(first.map((e) => e.key));
    expect(copy[0]!.key).not.toBe(copy[1]!.key);
  });
});

import {
  createEntry,
  type Entry,
  type EntryMeta,
  outputText,
  type Part,
  type Role,
} from '../transcript/transcript.ts';

/** One content part of an OpenAI Chat Completions message. */
export type OpenAIContentPart = { type: 'text'; text: string } | { type: string; [field: string]: unknown };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** An OpenAI Chat Completions message (the shape of the corpus transcripts and most chat logs). */
export interface OpenAIMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | null | OpenAIContentPart[];
  name?: string;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

const KNOWN_FIELDS = new Set(['role', 'content', 'tool_calls', 'tool_call_id']);

/** Host message behind each converted entry: untouched entries convert back by reference. */
const hostMessages = new WeakMap<Entry, OpenAIMessage>();
/** Converted entry per host message, so repeated conversion of a growing history is O(new). */
const convertedEntries = new WeakMap<OpenAIMessage, Entry>();

function parseArguments(raw: string): unknown {
  try {
    const parsed: unknown = JSON.parse(raw);
    // Keep the raw string whenever re-serialising would not give back the same bytes.
    return JSON.stringify(parsed) === raw ? parsed : raw;
  } catch {
    return raw;
  }
}

function contentParts(content: OpenAIMessage['content']): {
  parts: Part[];
  shape: 'string' | 'null' | 'array' | 'absent';
} {
  if (content === undefined) return { parts: [], shape: 'absent' };
  if (content === null) return { parts: [], shape: 'null' };
  if (typeof content === 'string') return { parts: [{ type: 'text', text: content }], shape: 'string' };
  const parts: Part[] = content.map((part): Part => {
    if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    return { type: 'opaque', kind: part.type, value: part };
  });
  return { parts, shape: 'array' };
}

function extraFields(message: OpenAIMessage): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const [field, value] of Object.entries(message)) {
    if (KNOWN_FIELDS.has(field)) continue;
    extra ??= {};
    extra[field] = value;
  }
  return extra;
}

/**
 * Converts OpenAI Chat Completions messages into neutral entries, losslessly: `toOpenAIChat`
 * gives back the same messages (by reference when untouched, field-for-field otherwise).
 *
 * @example
 * const entries = fromOpenAIChat(transcript.messages);
 */
export function fromOpenAIChat(messages: readonly OpenAIMessage[]): Entry[] {
  const callNames = new Map<string, string>();
  return messages.map((message, seq) => {
    const cached = convertedEntries.get(message);
    if (cached && cached.seq === seq) {
      for (const part of cached.parts) if (part.type === 'tool-call') callNames.set(part.id, part.name);
      return cached;
    }
    const { parts, shape } = contentParts(message.content);
    let role: Role;
    if (message.role === 'tool') {
      role = 'tool';
      const callId = message.tool_call_id ?? '';
      const output = shape === 'array' ? message.content : (message.content ?? '');
      parts.length = 0;
      parts.push({
        type: 'tool-result',
        callId,
        name: message.name ?? callNames.get(callId) ?? 'unknown',
        output,
      });
    } else if (message.role === 'assistant') {
      role = 'assistant';
      for (const call of message.tool_calls ?? []) {
        callNames.set(call.id, call.function.name);
        parts.push({
          type: 'tool-call',
          id: call.id,
          name: call.function.name,
          input: parseArguments(call.function.arguments),
        });
      }
    } else {
      role = message.role === 'developer' ? 'system' : message.role;
    }
    const meta: EntryMeta = { openai: { role: message.role, shape, extra: extraFields(message) } };
    const entry = createEntry(seq, role, parts);
    entry.meta = meta;
    hostMessages.set(entry, message);
    convertedEntries.set(message, entry);
    return entry;
  });
}

interface OpenAIMeta {
  role?: OpenAIMessage['role'];
  shape?: 'string' | 'null' | 'array' | 'absent';
  extra?: Record<string, unknown>;
}

function textContent(parts: readonly Part[], shape: OpenAIMeta['shape']): OpenAIMessage['content'] {
  const texts = parts.filter((p) => p.type === 'text' || p.type === 'opaque');
  if (shape === 'array' || texts.some((p) => p.type === 'opaque')) {
    return texts.map((p) =>
      p.type === 'text' ? { type: 'text', text: p.text } : (p.value as OpenAIContentPart),
    );
  }
  if (texts.length === 0) return shape === 'null' ? null : shape === 'absent' ? undefined : '';
  return texts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/**
 * Converts neutral entries back to OpenAI Chat Completions messages. Entries that came from
 * `fromOpenAIChat` and were not changed come back as the very same objects.
 */
export function toOpenAIChat(entries: readonly Entry[]): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  for (const entry of entries) {
    const host = hostMessages.get(entry);
    if (host) {
      out.push(host);
      continue;
    }
    const meta = (entry.meta?.openai ?? {}) as OpenAIMeta;
    const extra = meta.extra ?? {};
    if (entry.role === 'tool') {
      for (const part of entry.parts) {
        if (part.type !== 'tool-result') continue;
        const content =
          typeof part.output === 'string' || Array.isArray(part.output)
            ? part.output
            : outputText(part.output);
        out.push({
          role: 'tool',
          content: content as string | OpenAIContentPart[],
          tool_call_id: part.callId,
          ...extra,
        });
      }
      continue;
    }
    const message: OpenAIMessage = { role: entry.role === 'system' ? (meta.role ?? 'system') : entry.role };
    const content = textContent(entry.parts, meta.shape);
    if (content !== undefined) message.content = content;
    const calls = entry.parts.filter((p) => p.type === 'tool-call');
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
        },
      }));
    }
    out.push(Object.assign(message, extra));
  }
  return out;
}

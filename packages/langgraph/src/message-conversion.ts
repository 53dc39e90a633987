import { createEntry, type Entry, type OpaquePart, outputText, type Part } from '@baton/core';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';

/** Host message behind each converted entry: untouched entries go back as the same object. */
const hostOf = new WeakMap<Entry, BaseMessage>();

type Block = { type?: string; text?: unknown; [field: string]: unknown };

function contentParts(content: BaseMessage['content']): Part[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  return (content as Block[]).flatMap((block): Part[] => {
    if (block.type === 'text' && typeof block.text === 'string') return [{ type: 'text', text: block.text }];
    // Provider tool_use blocks duplicate `tool_calls`; images, reasoning and the rest travel verbatim.
    if (block.type === 'tool_use' || block.type === 'tool_call') return [];
    const opaque: OpaquePart = { type: 'opaque', kind: String(block.type ?? 'block'), value: block };
    // A streamed ChatAnthropic reply keeps its tool arguments' deltas beside the tool_use blocks;
    // @langchain/anthropic 1.5.11 skips them when it builds the request (the arguments go in tool_use).
    if (block.type === 'input_json_delta') opaque.tokens = 0;
    if (block.type === 'reasoning' || block.type === 'thinking')
      opaque.text = String(block.reasoning ?? block.thinking ?? block.text ?? '');
    // Anthropic's server-side compaction: kept verbatim (and never evicted), counted by its text.
    else if (block.type === 'compaction')
      opaque.text = typeof block.content === 'string' ? block.content : '';
    return [opaque];
  });
}

function roleOf(message: BaseMessage): Entry['role'] {
  switch (message.type) {
    case 'system':
      return 'system';
    case 'ai':
      return 'assistant';
    case 'tool':
      return 'tool';
    default:
      return 'user';
  }
}

/**
 * The entry made of each host message at each position, and the fields it was made from. Within
 * one agent run LangGraph hands the model node the same message objects at every call, plus
 * the new ones: giving back the same entry for an unchanged message spares converting and
 * hashing the whole history again, and lets the session pass over the new messages only (see
 * `Entry` in core). A field a host reassigned in place (`message.content = ...`; LangChain and
 * LangGraph set `id` and `name` in place, and their middleware builds new messages otherwise)
 * makes a new entry; an edit inside the content array or the `tool_calls` array a message keeps
 * (`message.tool_calls[0].args = {}`) is not seen. One position per message: the same messages
 * converted at other positions too are converted again each time.
 */
interface Converted {
  seq: number;
  entry: Entry;
  fields: readonly unknown[];
}
const converted = new WeakMap<BaseMessage, Converted>();

/** What `toEntries` reads of a message, in a fixed order. */
const FIELDS: ReadonlyArray<(message: BaseMessage) => unknown> = [
  (message) => message.type,
  (message) => message.id,
  (message) => message.content,
  (message) => (message as AIMessage).tool_calls,
  (message) => (message as ToolMessage).tool_call_id,
  (message) => (message as ToolMessage).name,
  (message) => (message as ToolMessage).status,
];

// Compared field by field in place: this runs on every message of the history at every call,
// so the unchanged case (nearly all of them) allocates nothing.
function unchanged(known: Converted, seq: number, message: BaseMessage): boolean {
  return known.seq === seq && FIELDS.every((field, i) => field(message) === known.fields[i]);
}

/**
 * LangChain messages to neutral entries; keys are message ids when present. An unchanged message
 * at the same position gives the same entry object as last time: entries are values, so copy
 * one before changing it (a redacted copy for a log), never edit it.
 */
export function toEntries(messages: readonly BaseMessage[]): Entry[] {
  return messages.map((message, seq) => {
    const known = converted.get(message);
    if (known && unchanged(known, seq, message)) return known.entry;
    const entry = convert(message, seq);
    converted.set(message, { seq, entry, fields: FIELDS.map((field) => field(message)) });
    return entry;
  });
}

/** One message as an entry (its key the message id, else position and content hash). */
function convert(message: BaseMessage, seq: number): Entry {
  const role = roleOf(message);
  let parts: Part[];
  if (role === 'tool') {
    const tool = message as ToolMessage;
    parts = [
      {
        type: 'tool-result',
        callId: tool.tool_call_id,
        name: tool.name ?? 'tool',
        output: tool.content,
        ...(tool.status === 'error' ? { isError: true } : {}),
      },
    ];
  } else {
    parts = contentParts(message.content);
    if (role === 'assistant') {
      for (const call of (message as AIMessage).tool_calls ?? []) {
        parts.push({ type: 'tool-call', id: call.id ?? '', name: call.name, input: call.args });
      }
    }
  }
  const entry = createEntry(seq, role, parts, message.id ? `${message.id}` : undefined);
  hostOf.set(entry, message);
  return entry;
}

function text(entry: Entry): string {
  return entry.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/** Entries back to LangChain messages: untouched ones as the same objects, changed ones rebuilt. */
export function fromEntries(entries: readonly Entry[]): BaseMessage[] {
  return entries.map((entry) => {
    const host = hostOf.get(entry);
    if (host) return host;
    let message: BaseMessage;
    switch (entry.role) {
      case 'system':
        message = new SystemMessage({ content: text(entry) });
        break;
      case 'user':
        message = new HumanMessage({ content: text(entry) });
        break;
      case 'assistant': {
        const calls = entry.parts.flatMap((p) =>
          p.type === 'tool-call'
            ? [
                {
                  id: p.id,
                  name: p.name,
                  args: (p.input ?? {}) as Record<string, unknown>,
                  type: 'tool_call' as const,
                },
              ]
            : [],
        );
        message = new AIMessage({ content: text(entry), tool_calls: calls });
        break;
      }
      default: {
        const result = entry.parts.find((p) => p.type === 'tool-result');
        message = new ToolMessage({
          content: result && result.type === 'tool-result' ? outputText(result.output) : '',
          tool_call_id: result && result.type === 'tool-result' ? result.callId : '',
          ...(result && result.type === 'tool-result' ? { name: result.name } : {}),
          ...(result && result.type === 'tool-result' && result.isError ? { status: 'error' as const } : {}),
        });
      }
    }
    hostOf.set(entry, message);
    return message;
  });
}

/** Id prefix of the message carrying a step's notices (after the conversation, never kept past the step). */
export const NOTICES_MESSAGE_ID = 'baton-notices';

/** Whether a message is the trailing notices of an earlier step (the compaction node stores them for one step). */
export function isNoticesMessage(message: BaseMessage): boolean {
  return typeof message.id === 'string' && message.id.startsWith(NOTICES_MESSAGE_ID);
}

/**
 * This step's notices as the last message (a HumanMessage: every chat model accepts one
 * after tool results, while some refuse a system message there). Empty when there are none.
 */
export function trailerMessages(trailer: string): HumanMessage[] {
  if (trailer.length === 0) return [];
  return [
    new HumanMessage({ id: `${NOTICES_MESSAGE_ID}-${globalThis.crypto.randomUUID()}`, content: trailer }),
  ];
}

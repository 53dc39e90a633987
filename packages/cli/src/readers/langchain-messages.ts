import {
  createEntry,
  type Entry,
  type OpaquePart,
  type OpenAIMessage,
  type OpenAIToolCall,
  type Part,
} from '@baton/core';
import { isObject, type Json } from './json.ts';
import { anyProviderImagePart, type ImageTally, inlineImageSize } from './openai-image.ts';
import { notATranscript, TranscriptFormatError } from './session-file.ts';

/*
 * Serialized LangChain messages: the `toJSON()` constructor form LangGraph checkpoints hold, the
 * `messages_to_dict` form, and the LangGraph API's plain `{ type, content }`. The `langchain`
 * message-array format reads them as OpenAI chat; the LangGraph checkpoint reader as entries
 * with their content blocks kept.
 */

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? ''));

const LC_TYPES: Record<string, OpenAIMessage['role']> = {
  human: 'user',
  HumanMessage: 'user',
  ai: 'assistant',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  tool: 'tool',
  ToolMessage: 'tool',
  system: 'system',
  SystemMessage: 'system',
};

/**
 * One LangChain message (`toJSON()` constructor form or `messages_to_dict` form) as OpenAI chat.
 *
 * @example fromLangChain({ type: 'human', data: { content: 'Hi.' } }) // { role: 'user', content: 'Hi.' }
 */
export function fromLangChain(message: Json): OpenAIMessage {
  const constructorId = Array.isArray(message.id) ? String(message.id.at(-1)) : undefined;
  const kind = constructorId ?? String(message.type);
  const data = (message.kwargs ?? message.data ?? message) as Json;
  const role = LC_TYPES[kind];
  if (!role) throw notATranscript(`a LangChain message of unknown type ${JSON.stringify(kind)}`);
  const content = Array.isArray(data.content)
    ? (data.content as Json[]).map((p) => (p.type === 'text' ? String(p.text) : JSON.stringify(p))).join('\n')
    : text(data.content);
  if (role === 'tool') return { role, content, tool_call_id: String(data.tool_call_id) };
  const calls = (data.tool_calls ?? []) as Json[];
  return calls.length > 0
    ? {
        role,
        content: content.length > 0 ? content : null,
        tool_calls: calls.map(
          (c): OpenAIToolCall => ({
            id: String(c.id),
            type: 'function',
            function: { name: String(c.name), arguments: JSON.stringify(c.args ?? {}) },
          }),
        ),
      }
    : { role, content };
}

/** Blocks that repeat the message's `tool_calls` (Anthropic's tool_use, streamed chunks). */
const CALL_BLOCKS = new Set(['tool_use', 'tool_call', 'tool_call_chunk', 'input_json_delta']);

/** Where an image block keeps its picture, in LangChain's standard, OpenAI's and Anthropic's forms. */
function imageSource(block: Json): { source: string | undefined; detail: unknown } | undefined {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (block.type === 'image_url') {
    const url = block.image_url;
    return isObject(url)
      ? { source: str(url.url), detail: url.detail }
      : { source: str(url), detail: block.detail };
  }
  if (block.type === 'input_image') return { source: str(block.image_url), detail: block.detail };
  if (block.type !== 'image') return undefined;
  const metadata = isObject(block.metadata) ? block.metadata : {};
  if (isObject(block.source))
    return { source: str(block.source.data) ?? str(block.source.url), detail: metadata.detail };
  return {
    source: str(block.data) ?? str(block.base64) ?? str(block.url),
    detail: block.detail ?? metadata.detail,
  };
}

/** The thinking a reasoning block carries (LangChain's `reasoning`, Anthropic's `thinking`, OpenAI's summaries). */
function reasoningText(block: Json): string | undefined {
  if (block.type === 'thinking') return String(block.thinking ?? '');
  if (block.type !== 'reasoning') return undefined;
  if (typeof block.reasoning === 'string') return block.reasoning;
  if (typeof block.text === 'string') return block.text;
  if (Array.isArray(block.summary))
    return block.summary.map((s) => (isObject(s) ? String(s.text ?? '') : '')).join('\n');
  return '';
}

/** A message's `content` as parts: text, images priced by OpenAI's rule, reasoning counted as its text. */
function contentParts(content: unknown, tally: ImageTally): Part[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content))
    return content == null ? [] : [{ type: 'text', text: JSON.stringify(content) }];
  return content.flatMap((block): Part[] => {
    if (typeof block === 'string') return [{ type: 'text', text: block }];
    if (!isObject(block)) return [];
    if (block.type === 'text' && typeof block.text === 'string') return [{ type: 'text', text: block.text }];
    if (CALL_BLOCKS.has(String(block.type))) return [];
    const image = imageSource(block);
    if (image) return [anyProviderImagePart(block, inlineImageSize(image.source), image.detail, tally)];
    const opaque: OpaquePart = { type: 'opaque', kind: String(block.type ?? 'block'), value: block };
    const reasoning = reasoningText(block);
    if (reasoning !== undefined) opaque.text = reasoning;
    return [opaque];
  });
}

/**
 * Serialized LangChain messages (the `toJSON()` constructor form LangGraph checkpoints hold, the
 * `messages_to_dict` form, or the LangGraph API's plain `{ type, content }`) as entries keyed by
 * message id. Roles, tool calls and tool-call ids come from `fromLangChain`; content
 * blocks are kept as parts. A tool message's text is its result; its images are parts beside it.
 */
export function langChainEntries(messages: readonly unknown[], tally: ImageTally): Entry[] {
  const callNames = new Map<string, string>();
  return messages.map((message, seq) => {
    if (!isObject(message))
      throw new TranscriptFormatError(`message ${seq} of the LangGraph state is not an object`);
    const chat = fromLangChain(message);
    const data = (message.kwargs ?? message.data ?? message) as Json;
    const key = typeof data.id === 'string' && data.id.length > 0 ? data.id : undefined;
    const blocks = contentParts(data.content, tally);
    let parts: Part[];
    if (chat.role === 'tool') {
      const callId = String(chat.tool_call_id);
      const output =
        typeof data.content === 'string'
          ? data.content
          : blocks.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      parts = [
        {
          type: 'tool-result',
          callId,
          name: typeof data.name === 'string' ? data.name : (callNames.get(callId) ?? 'unknown'),
          output,
          ...(data.status === 'error' ? { isError: true } : {}),
        },
        ...blocks.filter((p) => p.type !== 'text'),
      ];
    } else {
      parts = blocks;
      for (const call of chat.tool_calls ?? []) {
        callNames.set(call.id, call.function.name);
        parts.push({
          type: 'tool-call',
          id: call.id,
          name: call.function.name,
          input: JSON.parse(call.function.arguments),
        });
      }
    }
    return createEntry(seq, chat.role === 'developer' ? 'system' : chat.role, parts, key);
  });
}

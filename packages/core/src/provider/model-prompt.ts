import { NOTES_HEADING } from '../agent/notes.ts';
import { NOTICES_HEADING } from '../agent/notices.ts';
import { encryptedCompactionTokens } from '../transcript/provider-context.ts';
import {
  contentHashOf,
  createEntry,
  type Entry,
  type OpaquePart,
  outputText,
  type Part,
  type Role,
  type ToolResultPart,
} from '../transcript/transcript.ts';

/**
 * The model prompt of the AI SDK's provider specification, structurally: what
 * `LanguageModelV2Prompt` … `LanguageModelV4Prompt` messages and the SDK's `ModelMessage`s
 * share (Mastra's `processLLMRequest` hands over the V2 form). A role, string or part-array
 * content, optional providerOptions. No framework import: the adapters pass their own types.
 */
export interface PromptMessage {
  role: Role;
  content: string | PromptPart[];
  providerOptions?: unknown;
}

export interface PromptPart {
  type: string;
  [field: string]: unknown;
}

/** `LanguageModelV*ToolResultOutput` / the SDK's `ToolResultOutput`. */
type ToolOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: unknown }
  | { type: 'execution-denied'; reason?: string }
  | { type: 'content'; value: unknown[] }
  | { type: string; [field: string]: unknown };

/** Host message behind each converted entry (untouched entries go back as the same object). */
const hostOf = new WeakMap<Entry, PromptMessage>();
/** The host output behind each converted tool-result part. */
const outputOf = new WeakMap<ToolResultPart, ToolOutput>();

export interface PromptConversionCache {
  /** Entries already known for host message objects (rewrite mode keeps seqs across steps). */
  entries: WeakMap<object, Entry>;
}

function resultPart(part: PromptPart): ToolResultPart {
  const output = (part.output ?? { type: 'text', value: '' }) as ToolOutput;
  let value: unknown;
  let isError = false;
  switch (output.type) {
    case 'text':
    case 'json':
      value = output.value;
      break;
    case 'error-text':
    case 'error-json':
      value = output.value;
      isError = true;
      break;
    case 'execution-denied':
      value = `execution denied${typeof output.reason === 'string' ? `: ${output.reason}` : ''}`;
      isError = true;
      break;
    default:
      value = 'value' in output ? output.value : output;
  }
  const converted: ToolResultPart = {
    type: 'tool-result',
    callId: String(part.toolCallId),
    name: String(part.toolName),
    output: value,
    ...(isError ? { isError: true } : {}),
  };
  outputOf.set(converted, output);
  return converted;
}

function opaque(part: PromptPart, text?: string): OpaquePart {
  return { type: 'opaque', kind: part.type, value: part, ...(text !== undefined ? { text } : {}) };
}

function isAnthropicCompaction(part: PromptPart): boolean {
  const options = part.providerOptions as { anthropic?: { type?: unknown } } | undefined;
  return options?.anthropic?.type === 'compaction';
}

/** Kept verbatim for the host, counted 0: no provider package puts it in a request. */
function unsent(part: PromptPart): OpaquePart {
  return { type: 'opaque', kind: part.type, value: part, tokens: 0 };
}

/**
 * `custom` parts a provider package serialises; every other kind is dropped when the request
 * is built (read in each package's prompt conversion: @ai-sdk/anthropic 4.0.105 sends only
 * `anthropic.fallback`, @ai-sdk/openai 4.0.118's Responses API only `openai.compaction`, chat
 * completions, @ai-sdk/google and @ai-sdk/amazon-bedrock none). `anthropic.message_start`,
 * which @ai-sdk/anthropic adds to every streamed step, is one of the dropped ones.
 */
const SENT_CUSTOM_KINDS = new Set(['anthropic.fallback', 'openai.compaction']);

function customPart(part: PromptPart): OpaquePart {
  if (!SENT_CUSTOM_KINDS.has(String(part.kind))) return unsent(part);
  // A fallback block names two models: its options are about what is sent.
  if (part.kind === 'anthropic.fallback') return opaque(part, JSON.stringify(part.providerOptions ?? {}));
  // An OpenAI compaction item: sized by its ciphertext, not a flat opaque cost.
  const kept = opaque(part);
  const tokens = encryptedCompactionTokens(kept);
  if (tokens !== undefined) kept.tokens = tokens;
  return kept;
}

function partsOf(message: PromptMessage): Part[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  const parts: Part[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        // A provider's compaction block rides on a text part; it goes back byte for byte, signature included.
        if (isAnthropicCompaction(part)) parts.push(opaque(part, String(part.text ?? '')));
        else parts.push({ type: 'text', text: String(part.text) });
        break;
      case 'reasoning':
        parts.push(opaque(part, String(part.text ?? '')));
        break;
      case 'tool-call':
        // Provider-executed calls are answered inside the same assistant message: not ours to pair.
        if (part.providerExecuted === true) parts.push(opaque(part, JSON.stringify(part.input ?? null)));
        else
          parts.push({
            type: 'tool-call',
            id: String(part.toolCallId),
            name: String(part.toolName),
            input: part.input,
          });
        break;
      case 'tool-result':
        if (message.role === 'assistant') parts.push(opaque(part, JSON.stringify(part.output ?? null)));
        else parts.push(resultPart(part));
        break;
      case 'custom':
        parts.push(customPart(part));
        break;
      case 'tool-approval-request':
        // The SDK drops it before the provider (convertToLanguageModelPrompt).
        parts.push(unsent(part));
        break;
      case 'tool-approval-response':
        // The SDK drops it unless provider-executed; only OpenAI's Responses API then sends a
        // short reference to the approval (the other packages skip it).
        parts.push(
          part.providerExecuted === true
            ? opaque(part, JSON.stringify({ id: part.approvalId, approve: part.approved }))
            : unsent(part),
        );
        break;
      default:
        // Files and images travel verbatim at their size or a fixed cost.
        parts.push(opaque(part));
    }
  }
  return parts;
}

/** True for the system message Baton inserts (notes and notices): rebuilt every call, never history. */
export function isBatonBlock(message: PromptMessage): boolean {
  if (message.role === 'system')
    return (
      typeof message.content === 'string' &&
      (message.content.startsWith(NOTES_HEADING) || message.content.startsWith(NOTICES_HEADING))
    );
  // The trailing notices of a step a host carried forward (see `withTrailer`).
  return message.role === 'user' && isNoticesText(soleText(message));
}

/** Whether a message text is Baton's trailing notices (what `withTrailer` adds). */
export function isNoticesText(text: string | undefined): boolean {
  return text?.startsWith(NOTICES_HEADING) === true;
}

function soleText(message: PromptMessage): string | undefined {
  if (typeof message.content === 'string') return message.content;
  const [part, ...rest] = message.content;
  return rest.length === 0 && part?.type === 'text' && typeof part.text === 'string' ? part.text : undefined;
}

/** How `promptToEntries` keys the entries of a host that gives its messages no ids. */
export type PromptKeys =
  /** `seq-contenthash`: the host re-sends the whole history on every call (the AI SDK). */
  | 'position'
  /**
   * The content hash and its occurrence: the host sends a window that drops its oldest
   * messages (Mastra's `lastMessages`), so positions shift while the messages stay the same.
   */
  | 'content';

/**
 * Host messages to neutral entries. The same history converts to the same keys on every call
 * even though the host builds new message objects per step (see `PromptKeys`).
 *
 * `seqOf` gives a message's seq when the host knows one that stays with the message (Mastra's
 * stored message time, while its window slides); a message it has none for follows the one
 * before it. Without it, seqs are positions in `messages`.
 */
export function promptToEntries(
  messages: readonly PromptMessage[],
  cache?: PromptConversionCache,
  keys: PromptKeys = 'position',
  seqOf?: (message: PromptMessage) => number | undefined,
): Entry[] {
  const entries: Entry[] = [];
  const occurrences = new Map<string, number>();
  let nextSeq = 0;
  for (const message of messages) {
    // Baton's own block is rebuilt every call. (The reply of an unfit step a host stored stays an
    // entry: `prepare` drops it, so a projection that leaves it out reads as changed.)
    if (isBatonBlock(message)) continue;
    const known = cache?.entries.get(message);
    if (known) {
      entries.push(known);
      nextSeq = Math.max(nextSeq, (known.meta?.span?.[1] ?? known.seq) + 1);
      continue;
    }
    const seq = seqOf?.(message) ?? nextSeq;
    nextSeq = seq + 1;
    const entry = createEntry(seq, message.role, partsOf(message));
    if (keys === 'content') {
      // The hash createEntry just computed (kept for the entry), not a second pass over the content.
      const hash = contentHashOf(entry);
      const seen = occurrences.get(hash) ?? 0;
      occurrences.set(hash, seen + 1);
      entry.key = seen === 0 ? `c-${hash}` : `c-${hash}-${seen}`;
    }
    if (message.providerOptions !== undefined) entry.meta = { providerOptions: message.providerOptions };
    hostOf.set(entry, message);
    cache?.entries.set(message, entry);
    entries.push(entry);
  }
  return entries;
}

function hostPart(part: Part): PromptPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'tool-call':
      return { type: 'tool-call', toolCallId: part.id, toolName: part.name, input: part.input };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.callId,
        toolName: part.name,
        output: outputOf.get(part) ?? {
          type: part.isError ? 'error-text' : 'text',
          value: outputText(part.output),
        },
      };
    case 'opaque':
      return part.value as PromptPart;
  }
}

/**
 * Neutral entries back to host messages: untouched ones as the very same objects; changed
 * and synthetic ones rebuilt, keeping their providerOptions.
 */
export function entriesToPrompt(entries: readonly Entry[], cache?: PromptConversionCache): PromptMessage[] {
  return entries.map((entry) => {
    const host = hostOf.get(entry);
    if (host) return host;
    const providerOptions = entry.meta?.providerOptions;
    const message: PromptMessage =
      entry.role === 'system'
        ? { role: 'system', content: entry.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n') }
        : { role: entry.role, content: entry.parts.map(hostPart) };
    if (providerOptions !== undefined) message.providerOptions = providerOptions;
    cache?.entries.set(message, entry);
    hostOf.set(entry, message);
    return message;
  });
}

/** Puts Baton's system block (the notes) right after the leading system messages. */
export function withSystemBlock(messages: PromptMessage[], block: string): PromptMessage[] {
  if (block.length === 0) return messages;
  let at = 0;
  while (at < messages.length && messages[at]!.role === 'system') at++;
  return [...messages.slice(0, at), { role: 'system', content: block }, ...messages.slice(at)];
}

/**
 * Appends this step's notices as a last user message: after the conversation the model reads
 * them last, and no byte of the cached prefix before them changes (DESIGN.md, cache rule).
 * The host's history never keeps it: the next call's prompt is this one minus the trailer,
 * plus what happened since.
 */
export function withTrailer(messages: PromptMessage[], trailer: string): PromptMessage[] {
  if (trailer.length === 0) return messages;
  return [...messages, { role: 'user', content: [{ type: 'text', text: trailer }] }];
}

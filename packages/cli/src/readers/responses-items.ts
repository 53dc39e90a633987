import { createEntry, type Entry, type OpaquePart, type Part, type Role } from '@baton/core';
import {
  base64ImageSize,
  dataUrlBase64,
  type OpenAIImageDetail,
  openAIImageTokens,
} from '@baton/core/internals';
import { isObject, type Json } from './json.ts';
import { TranscriptFormatError } from './session-file.ts';

/**
 * OpenAI Responses API items (`message`, `function_call`, `function_call_output`, `reasoning`,
 * ...) as neutral entries. Codex rollouts record exactly these items, so the `codex` and
 * `openai-responses` readers both convert through here; they differ only in how they find the
 * items in a file.
 */

/** An item and where it sits in its file, for error messages: "line 12", "record 2, output[3]". */
export interface LocatedItem {
  item: unknown;
  where: string;
}

export interface ItemsConversion {
  entries: Entry[];
  /** What a user should know about the conversion, one line each. */
  notes: string[];
}

/** Items a model sends: they join the assistant entry of the response they belong to. */
const OUTPUT_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'computer_call']);
/** Hosted tools the provider ran itself: call and result in one item, kept as counted text. */
const HOSTED_CALLS = new Set([
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
]);
const CALL_OUTPUTS = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'computer_call_output',
]);

/** Every `type` a Responses API item may carry that this converter reads. */
export const RESPONSES_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  ...OUTPUT_CALLS,
  ...CALL_OUTPUTS,
  ...HOSTED_CALLS,
]);

/** A typed Responses item (`{ type: 'message' | 'function_call' | ... }`). */
export function isResponsesItem(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string' && RESPONSES_ITEM_TYPES.has(value.type);
}

/** A typed item, or the untyped input message the API also takes (`{ role, content }`). */
export function isResponsesInput(value: unknown): boolean {
  return (
    isResponsesItem(value) ||
    (isObject(value) &&
      value.type === undefined &&
      typeof value.role === 'string' &&
      (typeof value.content === 'string' || Array.isArray(value.content)))
  );
}

/** Arguments parsed when they are JSON that serializes back to the same bytes, else the raw string (as core's chat reader does). */
function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return JSON.stringify(parsed) === raw ? parsed : raw;
  } catch {
    return raw;
  }
}

/** Counts what the conversion left out or could only estimate, for the notes. */
class Tally {
  readonly skipped = new Map<string, number>();
  unknownImages = 0;
  /** Parts kept without a text or a size to count them by (files, audio, generated images), by kind. */
  readonly uncounted = new Map<string, number>();
  reasoning = 0;
  reasoningWithText = 0;
  encrypted = 0;

  skip(what: string): void {
    this.skipped.set(what, (this.skipped.get(what) ?? 0) + 1);
  }

  keepUncounted(kind: string): void {
    this.uncounted.set(kind, (this.uncounted.get(kind) ?? 0) + 1);
  }

  notes(): string[] {
    const notes: string[] = [];
    if (this.reasoning > 0)
      notes.push(
        `${this.reasoning} reasoning items kept, counted at their summary text (${this.reasoningWithText} have one)${this.encrypted > 0 ? `; the encrypted reasoning of ${this.encrypted} is not counted (its size is unknown)` : ''}`,
      );
    if (this.unknownImages > 0)
      notes.push(
        `${this.unknownImages} images of unknown size (a URL or file id, or not PNG/JPEG/GIF/WebP) counted at the default opaque cost`,
      );
    if (this.uncounted.size > 0)
      notes.push(
        `parts kept at the default opaque cost: ${[...this.uncounted].map(([kind, n]) => `${kind} ${n}`).join(', ')}`,
      );
    if (this.skipped.size > 0)
      notes.push(
        `items skipped: ${[...this.skipped].map(([type, n]) => `${type} ${n}`).join(', ')} (not model input Baton can count)`,
      );
    return notes;
  }
}

/** An image content part as an opaque part, costed by OpenAI's rule when its size can be read. */
function imagePart(part: Json, tally: Tally): OpaquePart {
  const url = typeof part.image_url === 'string' ? part.image_url : undefined;
  const base64 = url === undefined ? undefined : dataUrlBase64(url);
  const size = base64 === undefined ? undefined : base64ImageSize(base64);
  const detail: OpenAIImageDetail = part.detail === 'low' || part.detail === 'high' ? part.detail : 'auto';
  if (!size) {
    tally.unknownImages++;
    return { type: 'opaque', kind: 'image', value: part };
  }
  return { type: 'opaque', kind: 'image', value: part, tokens: openAIImageTokens(size, detail) };
}

/** Content parts of a message or a tool output: text as text, images and files opaque (their base64 never counted as text). */
function contentParts(content: unknown, where: string, tally: Tally): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content))
    throw new TranscriptFormatError(`${where}: content is neither a string nor a list of parts`);
  return content.map((part, index): Part => {
    if (!isObject(part) || typeof part.type !== 'string')
      throw new TranscriptFormatError(`${where}: content part ${index} is not an object with a type`);
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
      case 'summary_text':
        if (typeof part.text !== 'string')
          throw new TranscriptFormatError(`${where}: content part ${index} (${part.type}) has no text`);
        return { type: 'text', text: part.text };
      case 'refusal':
        return { type: 'text', text: String(part.refusal ?? '') };
      case 'input_image':
        return imagePart(part, tally);
      case 'computer_screenshot':
        return imagePart(part, tally);
      default:
        tally.keepUncounted(part.type);
        return { type: 'opaque', kind: part.type, value: part };
    }
  });
}

/** A tool output: its text as the result's output, its images as opaque parts beside it. */
function toolOutput(
  raw: unknown,
  where: string,
  tally: Tally,
): { output: unknown; isError: boolean; extra: Part[] } {
  let value = raw;
  let isError = false;
  // Some Codex versions record the payload object: { content, success }.
  if (
    isObject(value) &&
    'content' in value &&
    (value.success === undefined || typeof value.success === 'boolean')
  ) {
    isError = value.success === false;
    value = value.content;
  }
  if (isObject(value) && value.type === 'computer_screenshot') value = [value];
  if (!Array.isArray(value)) return { output: value ?? '', isError, extra: [] };
  const parts = contentParts(value, where, tally);
  const texts = parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  return { output: texts.join('\n'), isError, extra: parts.filter((p) => p.type !== 'text') };
}

function reasoningPart(item: Json, tally: Tally): OpaquePart {
  const texts = (list: unknown, type: string) =>
    Array.isArray(list)
      ? list.flatMap((s) => (isObject(s) && s.type === type && typeof s.text === 'string' ? [s.text] : []))
      : [];
  // The summary is what a client can read; raw reasoning text appears only for open-weight models.
  const text = [...texts(item.summary, 'summary_text'), ...texts(item.content, 'reasoning_text')].join('\n');
  tally.reasoning++;
  if (text.length > 0) tally.reasoningWithText++;
  if (typeof item.encrypted_content === 'string' && item.encrypted_content.length > 0) tally.encrypted++;
  return { type: 'opaque', kind: 'reasoning', value: item, text };
}

/** A hosted tool call without its bookkeeping fields, as the text it adds to the context. */
function hostedCallText(item: Json): string | undefined {
  // A generated image comes back as base64: an image, not text.
  if (item.type === 'image_generation_call') return undefined;
  const { id: _id, status: _status, ...rest } = item;
  return JSON.stringify(rest);
}

interface Draft {
  role: Role;
  parts: Part[];
}

/**
 * Converts Responses items, in order, to entries. Consecutive output items (reasoning, an
 * assistant message, function calls) are one model response, hence one assistant entry; each
 * call output is a tool entry; user messages are user entries; system and developer messages
 * (and `instructions`, first) are system entries. Call ids are not message ids, so entries get
 * `seq-hash` keys. A malformed item throws `TranscriptFormatError` naming where it is.
 */
export function responsesItemsToEntries(
  items: Iterable<LocatedItem>,
  { instructions }: { instructions?: string | undefined } = {},
): ItemsConversion {
  const tally = new Tally();
  const drafts: Draft[] = [];
  if (instructions) drafts.push({ role: 'system', parts: [{ type: 'text', text: instructions }] });
  const callNames = new Map<string, string>();
  let response: Draft | undefined;
  const responseDraft = () => {
    if (!response) {
      response = { role: 'assistant', parts: [] };
      drafts.push(response);
    }
    return response;
  };

  for (const { item, where } of items) {
    if (!isObject(item)) throw new TranscriptFormatError(`${where}: an item is not an object`);
    const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined);
    if (typeof type !== 'string') throw new TranscriptFormatError(`${where}: an item has no type`);
    if (type === 'message') {
      const parts = contentParts(item.content, where, tally);
      if (item.role === 'assistant') responseDraft().parts.push(...parts);
      else if (item.role === 'user' || item.role === 'system' || item.role === 'developer') {
        response = undefined;
        drafts.push({ role: item.role === 'user' ? 'user' : 'system', parts });
      } else throw new TranscriptFormatError(`${where}: a message has role ${JSON.stringify(item.role)}`);
    } else if (type === 'reasoning') {
      responseDraft().parts.push(reasoningPart(item, tally));
    } else if (OUTPUT_CALLS.has(type)) {
      const id = item.call_id ?? item.id;
      const name =
        type === 'local_shell_call' ? 'local_shell' : type === 'computer_call' ? 'computer' : item.name;
      if (typeof id !== 'string' || typeof name !== 'string')
        throw new TranscriptFormatError(`${where}: a ${type} item has no call_id or no name`);
      callNames.set(id, name);
      const input =
        type === 'function_call'
          ? parseArguments(item.arguments)
          : type === 'custom_tool_call'
            ? (item.input ?? '')
            : (item.action ?? {});
      responseDraft().parts.push({ type: 'tool-call', id, name, input });
    } else if (CALL_OUTPUTS.has(type)) {
      if (typeof item.call_id !== 'string')
        throw new TranscriptFormatError(`${where}: a ${type} item has no call_id`);
      response = undefined;
      const { output, isError, extra } = toolOutput(item.output, where, tally);
      drafts.push({
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: item.call_id,
            name: callNames.get(item.call_id) ?? 'unknown',
            output,
            ...(isError ? { isError } : {}),
          },
          ...extra,
        ],
      });
    } else if (HOSTED_CALLS.has(type)) {
      const text = hostedCallText(item);
      if (text === undefined) tally.keepUncounted(type);
      responseDraft().parts.push({
        type: 'opaque',
        kind: type,
        value: item,
        ...(text === undefined ? {} : { text }),
      });
    } else {
      tally.skip(type);
    }
  }
  return {
    entries: drafts.map((draft, seq) => createEntry(seq, draft.role, draft.parts)),
    notes: tally.notes(),
  };
}

import {
  createEntry,
  type Entry,
  fromOpenAIChat,
  type OpenAIMessage,
  type Part,
  type Role,
} from '@baton/core';
import { type PromptMessage, promptToEntries } from '@baton/core/internals';
import {
  assistantParts,
  BlockTally,
  imagePart,
  otherPart,
  toolResultParts,
} from './readers/anthropic-blocks.ts';
import { SESSION_READERS } from './readers/index.ts';
import { isObject, type Json } from './readers/json.ts';
import { fromLangChain } from './readers/langchain-messages.ts';
import {
  FORMATS,
  type FormatName,
  notATranscript,
  type ReadOptions,
  type SessionFile,
  sessionFile,
  type Transcript,
  TranscriptFormatError,
} from './readers/session-file.ts';

export { FORMATS, type FormatName, type Transcript, TranscriptFormatError };

function describe(value: unknown): string {
  if (Array.isArray(value)) {
    const first = value[0];
    return value.length === 0
      ? 'an empty array'
      : `an array of ${value.length} whose first item is ${isObject(first) ? `an object with keys ${Object.keys(first).slice(0, 6).join(', ')}` : typeof first}`;
  }
  if (isObject(value)) return `an object with keys ${Object.keys(value).slice(0, 8).join(', ') || '(none)'}`;
  return `a ${value === null ? 'null' : typeof value}`;
}

function fail(found: string): never {
  throw notATranscript(found);
}

/**
 * Anthropic Messages API messages as entries: tool_use blocks become tool calls, each
 * tool_result block a tool entry (its images beside its text), thinking kept and counted,
 * images counted by Anthropic's image rule (see anthropic-blocks.ts).
 */
function fromAnthropic(messages: Json[], system: unknown): { entries: Entry[]; notes: string[] } {
  const tally = new BlockTally();
  const names = new Map<string, string>();
  const drafts: Array<{ role: Role; parts: Part[] }> = [];
  const systemText = Array.isArray(system)
    ? system.map((block) => (isObject(block) && block.type === 'text' ? String(block.text) : '')).join('\n')
    : system;
  if (typeof systemText === 'string' && systemText !== '')
    drafts.push({ role: 'system', parts: [{ type: 'text', text: systemText }] });
  messages.forEach((message, index) => {
    const where = `message ${index} (${String(message.role)})`;
    if (message.role === 'assistant') {
      const parts = assistantParts(message.content, where, tally);
      for (const part of parts) if (part.type === 'tool-call') names.set(part.id, part.name);
      drafts.push({ role: 'assistant', parts });
      return;
    }
    const blocks: unknown =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (!Array.isArray(blocks))
      throw new TranscriptFormatError(`${where}: content is not a string or a list of blocks`);
    const user: Part[] = [];
    blocks.forEach((block, at) => {
      if (!isObject(block) || typeof block.type !== 'string')
        throw new TranscriptFormatError(`${where}: content block ${at} is not an object with a type`);
      if (block.type === 'tool_result')
        drafts.push({ role: 'tool', parts: toolResultParts(block, names, where, tally) });
      else if (block.type === 'text') user.push({ type: 'text', text: String(block.text ?? '') });
      else if (block.type === 'image') user.push(imagePart(block, tally));
      else user.push(otherPart(block, tally));
    });
    if (user.length > 0) drafts.push({ role: 'user', parts: user });
  });
  const notes: string[] = [];
  if (tally.unknownImages > 0)
    notes.push(`${tally.unknownImages} images of unknown size counted at the default opaque cost`);
  if (tally.opaque.size > 0)
    notes.push(
      `blocks kept at the default opaque cost: ${[...tally.opaque].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
  return { entries: drafts.map((draft, seq) => createEntry(seq, draft.role, draft.parts)), notes };
}

const hasRole = (m: unknown) => isObject(m) && typeof m.role === 'string';

/**
 * Why an OpenAI chat message cannot be read, or undefined: checked before conversion, so a
 * malformed file gets one line naming the message instead of a TypeError from deep inside.
 */
function openAIMessageProblem(message: Json): string | undefined {
  const { content } = message;
  if (!(content === undefined || content === null || typeof content === 'string' || Array.isArray(content)))
    return `content is ${describe(content)}, not a string, null or a list of parts`;
  if (Array.isArray(content)) {
    const bad = content.findIndex((part) => !isObject(part) || typeof part.type !== 'string');
    if (bad >= 0) return `content part ${bad} is ${describe(content[bad])}, not an object with a type`;
  }
  if (message.tool_calls !== undefined) {
    if (!Array.isArray(message.tool_calls)) return 'tool_calls is not a list';
    const bad = message.tool_calls.findIndex(
      (call) => !isObject(call) || !isObject(call.function) || typeof call.function.name !== 'string',
    );
    if (bad >= 0) return `tool_calls[${bad}] has no function with a name`;
  }
  if (message.role === 'tool' && typeof message.tool_call_id !== 'string')
    return 'a tool message has no tool_call_id';
  return undefined;
}

/** Runs a conversion; a shape it cannot handle is a format error naming the format, not a crash. */
function converted(
  format: FormatName,
  convert: () => Entry[] | { entries: Entry[]; notes: string[] },
): Transcript {
  try {
    const read = convert();
    if (Array.isArray(read)) return { format, entries: read };
    return { format, entries: read.entries, ...(read.notes.length > 0 ? { notes: read.notes } : {}) };
  } catch (error) {
    if (error instanceof TranscriptFormatError) throw error;
    throw new TranscriptFormatError(
      `the file looks like ${FORMATS[format]}, but a message in it cannot be read (${(error as Error).message})`,
    );
  }
}

function detectArray(messages: unknown[], anthropicSystem: unknown): Transcript {
  if (messages.length === 0) fail('an empty list of messages');
  const objects = messages.filter(isObject);
  if (objects.length !== messages.length) fail(describe(messages));
  // LangChain: constructor form ({ lc, type: 'constructor', id, kwargs }) or dict form ({ type, data }).
  if (
    objects.every(
      (m) => (m.lc === 1 && Array.isArray(m.id)) || (typeof m.type === 'string' && isObject(m.data)),
    )
  ) {
    return converted('langchain', () => fromOpenAIChat(objects.map(fromLangChain)));
  }
  if (!objects.every(hasRole)) fail(describe(messages));
  const parts = objects.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as unknown[]).filter(isObject) : [],
  );
  // Anthropic blocks: tool_use / tool_result, thinking, or an image with a `source` (OpenAI's are image_url).
  if (
    parts.some(
      (p) =>
        p.type === 'tool_use' ||
        p.type === 'tool_result' ||
        p.type === 'thinking' ||
        p.type === 'redacted_thinking' ||
        (p.type === 'image' && isObject(p.source)),
    ) ||
    anthropicSystem !== undefined
  ) {
    return converted('anthropic', () => fromAnthropic(objects, anthropicSystem));
  }
  if (
    parts.some((p) => p.type === 'tool-call' || p.type === 'tool-result') ||
    objects.some((m) => m.role === 'tool' && Array.isArray(m.content))
  ) {
    return converted('ai-sdk', () => promptToEntries(objects as unknown as PromptMessage[]));
  }
  if (objects.every((m) => ['system', 'developer', 'user', 'assistant', 'tool'].includes(String(m.role)))) {
    for (const [index, message] of objects.entries()) {
      const problem = openAIMessageProblem(message);
      if (problem)
        throw new TranscriptFormatError(
          `message ${index} (${String(message.role)}) of an ${FORMATS['openai-chat']} file cannot be read: ${problem}`,
        );
    }
    return converted('openai-chat', () => fromOpenAIChat(objects as OpenAIMessage[]));
  }
  return fail(describe(messages));
}

/** Reads a message array (OpenAI chat, AI SDK, LangChain, Anthropic) from parsed JSON. */
function messageArray(value: unknown): Transcript {
  if (Array.isArray(value)) return detectArray(value, undefined);
  if (isObject(value) && Array.isArray(value.messages)) return detectArray(value.messages, value.system);
  return fail(describe(value));
}

/** `[]`, or an object whose `messages` is `[]`. */
function isEmptyMessageList(value: unknown): boolean {
  const list = Array.isArray(value) ? value : (value as { messages?: unknown } | null)?.messages;
  return Array.isArray(list) && list.length === 0;
}

/** Reads a transcript in any of the message-array formats, detected from its shape. */
export function parseTranscript(raw: string): Transcript {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return fail(`text that is not JSON (${(error as Error).message})`);
  }
  return messageArray(value);
}

/**
 * Reads a session file in any format Baton knows: the session-file readers first (each checks
 * the shape cheaply), then the message arrays. A file none of them reads gets one error listing
 * every format tried and why it did not fit.
 */
export function readSession(file: SessionFile | string, options: ReadOptions = {}): Transcript {
  const session = typeof file === 'string' ? sessionFile(file) : file;
  const tried: string[] = [];
  for (const reader of SESSION_READERS) {
    const why = reader.mismatch(session);
    if (why === undefined) return reader.read(session, options);
    tried.push(`  - ${FORMATS[reader.format]}: ${why}`);
  }
  if (options.thread !== undefined)
    throw new TranscriptFormatError(
      `--thread: this file holds one conversation (no thread ${JSON.stringify(options.thread)})`,
    );
  // An empty list (or { messages: [] }) is no format's mismatch: say so before the list of formats.
  if (session.json.ok && isEmptyMessageList(session.json.value))
    throw new TranscriptFormatError('an empty list of messages: no conversation to read');
  let arrayProblem: string;
  if (session.isSqlite) arrayProblem = 'a SQLite database';
  else if (!session.json.ok) arrayProblem = `text that is ${session.json.error}`;
  else {
    try {
      return messageArray(session.json.value);
    } catch (error) {
      if (!(error instanceof TranscriptFormatError) || !error.message.startsWith('not a transcript'))
        throw error;
      arrayProblem =
        error.message.split('\n')[0]?.replace(/^not a transcript Baton can read: found /, '') ?? '';
    }
  }
  const arrays = (['openai-chat', 'ai-sdk', 'langchain', 'anthropic'] as const).map((f) => FORMATS[f]);
  throw new TranscriptFormatError(
    `not a transcript Baton can read.\nTried:\n${tried.join('\n')}${tried.length ? '\n' : ''}  - a message array (${arrays.join('; ')}): found ${arrayProblem}`,
  );
}

import { readFileSync } from 'node:fs';
import type { Entry } from '@baton/core';

/** A sub-conversation a session file holds besides its main one (a sub-agent, a simulation, a thread). */
export interface ThreadInfo {
  /** What `--thread` takes to select it. */
  id: string;
  /** One line for a person: who, how many messages. */
  label: string;
  messages: number;
}

/** Every format `baton replay` and `baton inspect` read; `FORMATS` describes each. */
export type FormatName =
  | 'openai-chat'
  | 'ai-sdk'
  | 'langchain'
  | 'anthropic'
  | 'claude-code'
  | 'codex'
  | 'openai-responses'
  | 'smolagents'
  | 'tau2'
  | 'langgraph-checkpoint'
  | 'mastra-storage';

/** One line per format: what it is and where it comes from, for the usage text and the errors. */
export const FORMATS: Readonly<Record<FormatName, string>> = {
  'openai-chat': 'OpenAI Chat Completions messages (an array, or { messages: [...] })',
  'ai-sdk': 'AI SDK ModelMessage[] (content parts: text, tool-call, tool-result)',
  langchain: 'LangChain serialized messages (toJSON() / messages_to_dict: human, ai, tool, system)',
  anthropic: 'Anthropic Messages API ({ system?, messages } with tool_use / tool_result blocks)',
  'claude-code': 'Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl)',
  codex: 'Codex rollout JSONL (~/.codex/sessions/**/rollout-*.jsonl)',
  'openai-responses':
    'OpenAI Responses API items ({ input, output } arrays of message / function_call items)',
  smolagents: 'smolagents run record (JSON or JSONL with memory steps)',
  tau2: 'tau2-bench results JSON (simulations with agent / user messages)',
  'langgraph-checkpoint': 'LangGraph checkpoint (a SQLite checkpointer file, or a JSON dump of getState())',
  'mastra-storage': 'Mastra stored messages (a LibSQL / SQLite storage file)',
};

/** The file is not a transcript Baton can read: says what it accepts and what it found. */
export class TranscriptFormatError extends Error {
  override readonly name = 'TranscriptFormatError';
}

/**
 * The error for a file no format reads: what was found, then every format Baton accepts.
 *
 * @example throw notATranscript('an empty list of messages');
 */
export function notATranscript(found: string): TranscriptFormatError {
  return new TranscriptFormatError(
    `not a transcript Baton can read: found ${found}.\nAccepted formats:\n${Object.values(FORMATS)
      .map((f) => `  - ${f}`)
      .join('\n')}`,
  );
}

/**
 * Meta key a reader sets on an assistant turn no model produced (tau2's fixed greeting): the
 * agent saw it, so it stays in the conversation, but replay makes no model call for it.
 */
export const SCRIPTED = 'scripted';

/** A conversation read from a file: what the model saw, as neutral entries. */
export interface Transcript {
  /** Reader that read it. */
  format: FormatName;
  /** The conversation; a system prompt the format records becomes its first (system) entry. */
  entries: Entry[];
  /** Every thread the file holds, when it holds more than one; `thread` is the one read. */
  threads?: ThreadInfo[];
  thread?: string;
  /** What the reader did that a user should know (duplicates dropped, parts skipped), one line each. */
  notes?: string[];
}

/**
 * The thread `--thread` names, else the first (the most recent); an unknown id is refused with
 * the file's ids.
 *
 * @example chooseThread(threads, options.thread, 'Mastra storage file')
 */
export function chooseThread<T extends { id: string }>(
  threads: readonly T[],
  wanted: string | undefined,
  kind: string,
): T {
  if (wanted === undefined) return threads[0] as T;
  const found = threads.find((t) => t.id === wanted);
  if (found) return found;
  const ids = threads.map((t) => JSON.stringify(t.id));
  const listed =
    ids.length > 20 ? `${ids.slice(0, 20).join(', ')} and ${ids.length - 20} more` : ids.join(', ');
  throw new TranscriptFormatError(
    `--thread: no thread ${JSON.stringify(wanted)} in this ${kind}; its threads: ${listed}`,
  );
}

export interface ReadOptions {
  /** A thread id from `Transcript.threads`; the main thread when absent. */
  thread?: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A file on disk as every reader sees it, parsed at most once whichever readers ask: the whole
 * text as JSON, each line as JSON (JSONL), or the path of a SQLite database.
 */
export interface SessionFile {
  path: string;
  bytes: Uint8Array;
  /** True when the file starts with the SQLite header; `text`, `json` and `lines` are then not tried. */
  isSqlite: boolean;
  readonly text: string;
  readonly json: Parsed<unknown>;
  /** Every non-blank line parsed as JSON; fails naming the first line that is not (and when there is no line). */
  readonly lines: Parsed<unknown[]>;
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

/** A line of a JSONL file, parsed, with its 1-based number. */
export interface JsonLine {
  value: unknown;
  line: number;
}

/**
 * Non-blank lines parsed as JSON with their 1-based numbers, at most `limit`; stops at the first
 * line that is not JSON and says whether it was the file's last (a session still being written).
 *
 * @example jsonLines('{"a":1}\n\n{"b"') // { lines: [{ value: { a: 1 }, line: 1 }], bad: { line: 3, message, last: true } }
 */
export function jsonLines(
  text: string,
  limit = Number.POSITIVE_INFINITY,
): { lines: JsonLine[]; bad?: { line: number; message: string; last: boolean } } {
  const lines: JsonLine[] = [];
  let start = 0;
  let number = 0;
  while (start < text.length && lines.length < limit) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const raw = text.slice(start, end);
    number++;
    start = end + 1;
    if (raw.trim() === '') continue;
    try {
      lines.push({ value: JSON.parse(raw), line: number });
    } catch (error) {
      return { lines, bad: { line: number, message: (error as Error).message, last: newline < 0 } };
    }
  }
  return { lines };
}

function memo<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** A session file from its bytes (tests pass bytes; the CLI reads the path). */
export function sessionFile(path: string, bytes: Uint8Array = readFileSync(path)): SessionFile {
  const isSqlite =
    bytes.length >= SQLITE_HEADER.length &&
    new TextDecoder('latin1').decode(bytes.subarray(0, SQLITE_HEADER.length)) === SQLITE_HEADER;
  const text = memo(() => new TextDecoder('utf-8').decode(bytes));
  const json = memo((): Parsed<unknown> => {
    try {
      return { ok: true, value: JSON.parse(text()) };
    } catch (error) {
      return { ok: false, error: `not JSON (${(error as Error).message})` };
    }
  });
  const lines = memo((): Parsed<unknown[]> => {
    const { lines, bad } = jsonLines(text());
    if (bad) return { ok: false, error: `line ${bad.line} is not JSON (${bad.message})` };
    return lines.length > 0
      ? { ok: true, value: lines.map((l) => l.value) }
      : { ok: false, error: 'no lines' };
  });
  return {
    path,
    bytes,
    isSqlite,
    get text() {
      return text();
    },
    get json() {
      return json();
    },
    get lines() {
      return lines();
    },
  };
}

/**
 * One format Baton reads. `mismatch` is a cheap shape check; when no reader fits a file, the
 * CLI lists every reader with its mismatch, so a user sees what was tried and why each failed.
 */
export interface SessionReader {
  format: FormatName;
  /** Undefined when the file is in this format; else why not, in a few words. */
  mismatch(file: SessionFile): string | undefined;
  /** Reads the file; a file that matched but cannot be read throws `TranscriptFormatError`. */
  read(file: SessionFile, options: ReadOptions): Transcript;
}

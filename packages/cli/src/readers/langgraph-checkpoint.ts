import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { createEntry, type Entry, type OpaquePart, type Part } from '@baton/core';
import {
  base64ImageSize,
  dataUrlBase64,
  type OpenAIImageDetail,
  openAIImageTokens,
} from '@baton/core/internals';
import { fromLangChain } from '../formats.ts';
import { isObject, type Json } from './json.ts';
import {
  type ReadOptions,
  type SessionFile,
  type SessionReader,
  type ThreadInfo,
  type Transcript,
  TranscriptFormatError,
} from './session-file.ts';

/**
 * LangGraph's persisted state as a transcript: a SQLite file written by
 * `@langchain/langgraph-checkpoint-sqlite`'s `SqliteSaver`, or a JSON dump of `getState()` or of
 * a checkpoint tuple. The conversation is the `messages` channel of a thread's latest
 * checkpoint, as `graph.getState()` shows it: pending writes of an unfinished step applied, a
 * `DeltaChannel` history rebuilt from its writes. Read with `node:sqlite`; LangGraph itself is
 * never loaded.
 */

// --- SQLite, shared with the Mastra reader -------------------------------------------------

type Sqlite = typeof import('node:sqlite');

/** `node:sqlite`, loaded on first use, without its one-time ExperimentalWarning on the user's terminal. */
function loadSqlite(): Sqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const sqlite = (process.getBuiltinModule as ((id: string) => Sqlite | undefined) | undefined)?.(
      'node:sqlite',
    );
    if (!sqlite?.DatabaseSync)
      throw new TranscriptFormatError(
        `reading a SQLite session file needs node:sqlite (Node >= 22.13), not Node ${process.versions.node}`,
      );
    return sqlite;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * Runs `use` on a session file's SQLite database, opened read-only and closed after. With no
 * write-ahead log beside it the file is opened `immutable`, so reading leaves nothing on disk;
 * with one (the app is running, or did not close its database) the log is read too.
 */
export function withSqlite<T>(file: SessionFile, use: (db: DatabaseSync) => T): T {
  const wal = `${file.path}-wal`;
  const live = existsSync(wal) && statSync(wal).size > 0;
  const location = live ? file.path : `${pathToFileURL(resolve(file.path)).href}?immutable=1`;
  const db = new (loadSqlite().DatabaseSync)(location, { readOnly: true });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** Every table of a database with its column names. */
export function sqliteTables(db: DatabaseSync): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  const names = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all();
  for (const { name } of names as Array<{ name: string }>) {
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as Array<{ name: string }>;
    tables.set(name, new Set(columns.map((c) => c.name)));
  }
  return tables;
}

/** Why a SQLite file is not the one a reader wants: the table it lacks, and what the file holds instead. */
export function missingTable(
  file: SessionFile,
  table: string,
  columns: readonly string[],
): string | undefined {
  let tables: Map<string, Set<string>>;
  try {
    tables = withSqlite(file, sqliteTables);
  } catch (error) {
    return `a SQLite file that cannot be opened (${(error as Error).message})`;
  }
  const found = tables.get(table);
  if (!found) {
    const names = [...tables.keys()];
    const listed = names.length > 6 ? `${names.slice(0, 6).join(', ')}, ...` : names.join(', ');
    return `a SQLite file without a ${table} table (${names.length > 0 ? `tables: ${listed}` : 'no tables'})`;
  }
  const absent = columns.filter((c) => !found.has(c));
  return absent.length > 0 ? `its ${table} table has no ${absent.join(', ')} column` : undefined;
}

// --- Images ---------------------------------------------------------------------------------

/** Assumed when an image's size cannot be read (a URL, a file id): 1024x1024, 765 tokens by OpenAI's rule. */
const UNKNOWN_IMAGE = { width: 1024, height: 1024 };

/** Counts what a conversion assumed, for the notes. */
export interface ImageTally {
  unsized: number;
}

/**
 * An image as an opaque part priced by OpenAI's rule from the size its header declares; the
 * base64 is kept in `value` and never counted as text.
 */
export function imagePart(
  value: unknown,
  source: string | undefined,
  detail: unknown,
  tally: ImageTally,
): OpaquePart {
  const base64 = source === undefined ? undefined : (dataUrlBase64(source) ?? rawBase64(source));
  let size = base64 === undefined ? undefined : base64ImageSize(base64);
  if (!size) {
    tally.unsized++;
    size = { ...UNKNOWN_IMAGE, format: 'png' };
  }
  const level: OpenAIImageDetail = detail === 'low' || detail === 'high' ? detail : 'auto';
  return { type: 'opaque', kind: 'image', value, tokens: openAIImageTokens(size, level) };
}

/** A string that is bare base64 (not a URL): what LangChain's and Mastra's `data` fields hold. */
function rawBase64(source: string): string | undefined {
  return /^[A-Za-z0-9+/=\s]+$/.test(source.slice(0, 256)) ? source : undefined;
}

/** The note for images priced at the assumed size, if any. */
export function imageNote(tally: ImageTally): string[] {
  return tally.unsized > 0
    ? [
        `${tally.unsized} image(s) whose size cannot be read from the file (a URL, a file id) counted as 1024x1024: 765 tokens each`,
      ]
    : [];
}

// --- LangChain messages ---------------------------------------------------------------------

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
    if (image) return [imagePart(block, image.source, image.detail, tally)];
    const opaque: OpaquePart = { type: 'opaque', kind: String(block.type ?? 'block'), value: block };
    const reasoning = reasoningText(block);
    if (reasoning !== undefined) opaque.text = reasoning;
    return [opaque];
  });
}

/**
 * Serialized LangChain messages (the `toJSON()` constructor form LangGraph checkpoints hold, the
 * `messages_to_dict` form, or the LangGraph API's plain `{ type, content }`) as entries keyed by
 * message id. Roles, tool calls and tool-call ids come from the shared `fromLangChain`; content
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

// --- LangGraph state ------------------------------------------------------------------------

/** The `messages` channel value: a list, or a `DeltaSnapshot` record wrapping one. */
function channelList(value: unknown): Json[] {
  if (isObject(value) && value.lc === 2 && value.type === 'delta_snapshot') return channelList(value.value);
  return Array.isArray(value) ? value.filter(isObject) : [];
}

const kindOf = (message: Json) =>
  Array.isArray(message.id) ? String(message.id.at(-1)) : String(message.type ?? '');
const messageId = (message: Json) => {
  const data = (message.kwargs ?? message.data ?? message) as Json;
  return typeof data.id === 'string' ? data.id : undefined;
};

/**
 * LangGraph's `messagesStateReducer` over serialized messages: a known id replaces, a
 * `RemoveMessage` deletes (`__remove_all__` clears), anything else appends.
 */
function addMessages(current: Json[], update: unknown): Json[] {
  const result: Array<Json | null> = [...current];
  const index = new Map<string, number>();
  for (const [i, m] of current.entries()) {
    const id = messageId(m);
    if (id !== undefined) index.set(id, i);
  }
  for (const message of (Array.isArray(update) ? update : [update]).filter(isObject)) {
    const id = messageId(message);
    if (kindOf(message) === 'RemoveMessage') {
      if (id === '__remove_all__') {
        result.length = 0;
        index.clear();
      } else if (id !== undefined && index.has(id)) {
        result[index.get(id) as number] = null;
        index.delete(id);
      }
    } else if (id !== undefined && index.has(id)) result[index.get(id) as number] = message;
    else {
      if (id !== undefined) index.set(id, result.length);
      result.push(message);
    }
  }
  return result.filter((m): m is Json => m !== null);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TranscriptFormatError(`${what} is not JSON (${(error as Error).message})`);
  }
}

/** A serialized value of a checkpoint row, decoded as `JsonPlusSerializer` wrote it. */
function decode(type: unknown, data: unknown, what: string): unknown {
  if (type !== null && type !== undefined && type !== 'json')
    throw new TranscriptFormatError(
      `${what} is stored as ${JSON.stringify(type)}, not JSON: it was written with a custom serializer Baton cannot read`,
    );
  const text =
    typeof data === 'string' ? data : data instanceof Uint8Array ? new TextDecoder().decode(data) : '';
  return parseJson(text, what);
}

interface CheckpointRow {
  thread_id: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Uint8Array | string;
}

interface ThreadRow {
  thread_id: string;
  ts: string | null;
  messages: number | null;
}

const CHECKPOINT_COLUMNS = [
  'thread_id',
  'checkpoint_ns',
  'checkpoint_id',
  'parent_checkpoint_id',
  'type',
  'checkpoint',
];

function threadList(db: DatabaseSync): ThreadRow[] {
  // The latest root checkpoint of every thread, newest first; counts read in SQL, without parsing each history.
  return db
    .prepare(
      `SELECT c.thread_id AS thread_id,
         CASE WHEN json_valid(CAST(c.checkpoint AS TEXT)) THEN json_extract(CAST(c.checkpoint AS TEXT), '$.ts') END AS ts,
         CASE WHEN json_valid(CAST(c.checkpoint AS TEXT))
           THEN json_array_length(CAST(c.checkpoint AS TEXT), '$.channel_values.messages') END AS messages
       FROM checkpoints AS c
       WHERE c.checkpoint_ns = '' AND c.checkpoint_id = (
         SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = c.thread_id AND checkpoint_ns = '')
       ORDER BY ts DESC, c.checkpoint_id DESC`,
    )
    .all() as unknown as ThreadRow[];
}

/** The thread `--thread` names, else the first (the most recent); an unknown id is refused with the file's ids. */
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

function readSqlite(file: SessionFile, options: ReadOptions): Transcript {
  return withSqlite(file, (db) => {
    const rows = threadList(db);
    if (rows.length === 0)
      throw new TranscriptFormatError('this LangGraph checkpoint file holds no checkpoints');
    const threads: ThreadInfo[] = rows.map((r) => ({
      id: r.thread_id,
      label: `${r.messages === null ? 'messages not in the checkpoint' : `${r.messages} messages`}${r.ts ? `, last checkpoint ${r.ts}` : ''}`,
      messages: r.messages ?? 0,
    }));
    const thread = chooseThread(threads, options.thread, 'LangGraph checkpoint file');
    const notes: string[] = [];
    const checkpointRow = db.prepare(
      `SELECT thread_id, checkpoint_id, parent_checkpoint_id, type, checkpoint FROM checkpoints
       WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`,
    );
    const latestRow = db
      .prepare(
        `SELECT thread_id, checkpoint_id, parent_checkpoint_id, type, checkpoint FROM checkpoints
         WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
      )
      .get(thread.id) as unknown as CheckpointRow;
    const writesAt = db.prepare(
      `SELECT type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ? AND channel = 'messages'
       ORDER BY task_id, idx`,
    );
    const hasWrites = sqliteTables(db).has('writes');
    const messageWrites = (checkpointId: string): unknown[] =>
      hasWrites
        ? (
            writesAt.all(thread.id, checkpointId) as Array<{
              type: string | null;
              value: Uint8Array | string;
            }>
          ).map((w) => decode(w.type, w.value, `a pending write of thread ${thread.id}`))
        : [];
    const checkpointOf = (row: CheckpointRow) => {
      const value = decode(
        row.type,
        row.checkpoint,
        `checkpoint ${row.checkpoint_id} of thread ${row.thread_id}`,
      );
      if (!isObject(value) || !isObject(value.channel_values))
        throw new TranscriptFormatError(
          `checkpoint ${row.checkpoint_id} of thread ${row.thread_id} has no channel_values`,
        );
      return value as Json & { channel_values: Json };
    };

    const latest = checkpointOf(latestRow);
    let messages: Json[];
    if ('messages' in latest.channel_values) messages = channelList(latest.channel_values.messages);
    else {
      // A DeltaChannel keeps only each step's writes (and a snapshot now and then): replay them
      // from the nearest ancestor holding a value, as getState() does.
      const steps: unknown[][] = [];
      let seed: Json[] = [];
      let parent = latestRow.parent_checkpoint_id;
      while (parent) {
        const row = checkpointRow.get(thread.id, parent) as unknown as CheckpointRow | undefined;
        if (!row) break;
        steps.push(messageWrites(row.checkpoint_id));
        const values = checkpointOf(row).channel_values;
        if ('messages' in values) {
          seed = channelList(values.messages);
          break;
        }
        parent = row.parent_checkpoint_id;
      }
      messages = steps.reverse().flat().reduce(addMessages, seed);
      if (steps.length > 0)
        notes.push(`messages rebuilt from ${steps.length} steps of writes (a DeltaChannel)`);
    }
    const pending = messageWrites(latestRow.checkpoint_id);
    if (pending.length > 0) {
      messages = pending.reduce(addMessages, messages);
      notes.push(
        `${pending.length} message write(s) of a step that did not finish (an interrupt, an error) included, as getState() shows them`,
      );
    }
    const subgraphs = (
      db
        .prepare(
          `SELECT COUNT(DISTINCT checkpoint_ns) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns != ''`,
        )
        .get(thread.id) as { n: number }
    ).n;
    if (subgraphs > 0)
      notes.push(
        `${subgraphs} subgraph namespace(s) of this thread not read: the root graph's messages only`,
      );
    return transcript(messages, notes, rows.length > 1 ? threads : undefined, thread.id);
  });
}

function transcript(
  messages: Json[],
  notes: string[],
  threads: ThreadInfo[] | undefined,
  thread: string | undefined,
): Transcript {
  const tally: ImageTally = { unsized: 0 };
  const entries = langChainEntries(messages, tally);
  notes.push(...imageNote(tally));
  if (!entries.some((e) => e.role === 'system'))
    notes.push(
      'no system prompt: LangGraph stores the graph state, not a prompt a node adds when it calls the model',
    );
  return {
    format: 'langgraph-checkpoint',
    entries,
    ...(threads ? { threads } : {}),
    ...(thread !== undefined ? { thread } : {}),
    notes,
  };
}

/** The messages of a JSON dump: `getState()` (`values.messages`), a checkpoint tuple, or a bare checkpoint. */
function dumpMessages(
  value: unknown,
): { messages: Json[]; pending: unknown[]; thread: string | undefined } | undefined {
  if (!isObject(value)) return undefined;
  const config =
    isObject(value.config) && isObject(value.config.configurable) ? value.config.configurable : {};
  const thread = typeof config.thread_id === 'string' ? config.thread_id : undefined;
  if (isObject(value.values) && Array.isArray(value.values.messages))
    return { messages: channelList(value.values.messages), pending: [], thread };
  const checkpoint = isObject(value.checkpoint) ? value.checkpoint : value;
  if (
    !isObject(checkpoint.channel_values) ||
    (!Array.isArray(checkpoint.channel_values.messages) && !isObject(checkpoint.channel_values.messages))
  )
    return undefined;
  const pending = Array.isArray(value.pendingWrites)
    ? value.pendingWrites.flatMap((w) => (Array.isArray(w) && w[1] === 'messages' ? [w[2]] : []))
    : [];
  return { messages: channelList(checkpoint.channel_values.messages), pending, thread };
}

function readDump(file: SessionFile, options: ReadOptions): Transcript {
  const dump = dumpMessages(file.json.ok ? file.json.value : undefined);
  if (!dump) throw new TranscriptFormatError('not a LangGraph state dump');
  if (options.thread !== undefined && options.thread !== dump.thread)
    throw new TranscriptFormatError(
      `--thread: this getState() dump holds one thread${dump.thread ? ` (${JSON.stringify(dump.thread)})` : ''}, not ${JSON.stringify(options.thread)}`,
    );
  const notes: string[] = [];
  const messages = dump.pending.reduce(addMessages, dump.messages);
  if (dump.pending.length > 0)
    notes.push(`${dump.pending.length} pending message write(s) included, as getState() shows them`);
  return transcript(messages, notes, undefined, dump.thread);
}

/**
 * `langgraph-checkpoint`: a `SqliteSaver` file (thread by `--thread`, else the only or the most
 * recently written one) or a JSON dump of `graph.getState(config)` / a checkpoint tuple.
 *
 * @example
 * const transcript = langgraphCheckpointReader.read(sessionFile('checkpoints.db'), { thread: 'chat-1' });
 */
export const langgraphCheckpointReader: SessionReader = {
  format: 'langgraph-checkpoint',
  mismatch(file) {
    if (file.isSqlite) return missingTable(file, 'checkpoints', CHECKPOINT_COLUMNS);
    if (!file.json.ok) return 'neither a SQLite checkpointer file nor JSON';
    return dumpMessages(file.json.value)
      ? undefined
      : 'JSON without values.messages (getState()) or checkpoint.channel_values.messages (a checkpoint tuple)';
  },
  read(file, options) {
    return file.isSqlite ? readSqlite(file, options) : readDump(file, options);
  },
};

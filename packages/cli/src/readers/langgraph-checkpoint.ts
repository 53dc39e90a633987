import type { DatabaseSync } from 'node:sqlite';
import { isObject, type Json } from './json.ts';
import { langChainEntries } from './langchain-messages.ts';
import { type ImageTally, imageNote } from './openai-image.ts';
import {
  chooseThread,
  type ReadOptions,
  type SessionFile,
  type SessionReader,
  type ThreadInfo,
  type Transcript,
  TranscriptFormatError,
} from './session-file.ts';
import { missingTable, sqliteTables, withSqlite } from './sqlite-file.ts';

/*
 * LangGraph's persisted state as a transcript: a SQLite file written by
 * `@langchain/langgraph-checkpoint-sqlite`'s `SqliteSaver`, or a JSON dump of `getState()` or of
 * a checkpoint tuple. The conversation is the `messages` channel of a thread's latest
 * checkpoint, as `graph.getState()` shows it: pending writes of an unfinished step applied, a
 * `DeltaChannel` history rebuilt from its writes. Read with `node:sqlite`; LangGraph itself is
 * never loaded.
 */

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
      `${what} is stored as ${JSON.stringify(type)}, not JSON: Python's SqliteSaver writes msgpack by default, and other serializers are not read either (the JS checkpointer's JSON is)`,
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
    // A file without a writes table (an older or trimmed checkpointer) has no pending writes.
    const writesAt = sqliteTables(db).has('writes')
      ? db.prepare(
          `SELECT type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ? AND channel = 'messages'
       ORDER BY task_id, idx`,
        )
      : undefined;
    const messageWrites = (checkpointId: string): unknown[] =>
      writesAt
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
      const visited = new Set<string>();
      let wrote = false;
      while (parent && !visited.has(parent)) {
        visited.add(parent);
        const row = checkpointRow.get(thread.id, parent) as unknown as CheckpointRow | undefined;
        if (!row) break;
        const step = messageWrites(row.checkpoint_id);
        if (step.length > 0) wrote = true;
        steps.push(step);
        const values = checkpointOf(row).channel_values;
        if ('messages' in values) {
          seed = channelList(values.messages);
          break;
        }
        parent = row.parent_checkpoint_id;
      }
      // No ancestor held messages and no step wrote any: the graph has no messages channel.
      if (seed.length === 0 && !wrote)
        throw new TranscriptFormatError(
          `thread ${JSON.stringify(thread.id)} has no messages channel in its checkpoints (a graph whose state is not MessagesAnnotation-like)`,
        );
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

import type { DatabaseSync } from 'node:sqlite';
import {
  createEntry,
  type Entry,
  type OpaquePart,
  type Part,
  type Role,
  type ToolResultPart,
} from '@baton/core';
import { isObject, type Json } from './json.ts';
import { anyProviderImagePart, type ImageTally, imageNote, inlineImageSize } from './openai-image.ts';
import { chooseThread, type SessionReader, type ThreadInfo, TranscriptFormatError } from './session-file.ts';
import { missingTable, sqliteTables, withSqlite } from './sqlite-file.ts';

/**
 * Mastra's stored conversation as a transcript: the `mastra_messages` table of a LibSQL / SQLite
 * file written by `@mastra/libsql`'s `LibSQLStore`, one thread at a time. Messages are Mastra's
 * `format: 2` (parts: text, reasoning, file, tool-invocation, step-start); an assistant message
 * holds a whole multi-step turn and is split the way Mastra sends it to the model: per step an
 * assistant entry (its text, reasoning and tool calls), then a tool entry with the results.
 */

interface MessageRow {
  id: string;
  content: string;
  role: string;
  createdAt: string;
}

interface ThreadRow {
  id: string;
  messages: number;
  last: string;
  title: string | null;
  resourceId: string | null;
}

/** What the conversion skipped or assumed, for the notes. */
interface Tally extends ImageTally {
  pendingCalls: number;
  skippedParts: Map<string, number>;
  skippedRoles: Map<string, number>;
}

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

const MESSAGE_COLUMNS = ['id', 'thread_id', 'content', 'role', 'createdAt'];

function threadList(db: DatabaseSync): ThreadRow[] {
  const hasThreads = sqliteTables(db).get('mastra_threads')?.has('updatedAt') === true;
  // Most recent first: the thread's updatedAt (bumped on every save) or its newest message.
  return db
    .prepare(
      hasThreads
        ? `SELECT m.thread_id AS id, COUNT(*) AS messages, MAX(m."createdAt") AS last, t.title AS title, t."resourceId" AS resourceId
           FROM mastra_messages AS m LEFT JOIN mastra_threads AS t ON t.id = m.thread_id
           GROUP BY m.thread_id ORDER BY MAX(MAX(m."createdAt"), COALESCE(t."updatedAt", '')) DESC`
        : `SELECT thread_id AS id, COUNT(*) AS messages, MAX("createdAt") AS last, NULL AS title, MAX("resourceId") AS resourceId
           FROM mastra_messages GROUP BY thread_id ORDER BY last DESC`,
    )
    .all() as unknown as ThreadRow[];
}

/** A file part (or legacy attachment): an image priced by OpenAI's rule, any other file at a fixed cost. */
function filePart(part: Json, tally: Tally): OpaquePart {
  const data = typeof (part.data ?? part.url) === 'string' ? String(part.data ?? part.url) : undefined;
  const mime = String(part.mimeType ?? part.mediaType ?? part.contentType ?? '');
  if (mime.startsWith('image/') || data?.startsWith('data:image/'))
    return anyProviderImagePart(part, inlineImageSize(data), undefined, tally);
  return { type: 'opaque', kind: 'file', value: part };
}

/** The thinking a reasoning part carries: `reasoning`, else its text details (what Mastra sends back to the model). */
function reasoningText(part: Json): string {
  if (typeof part.reasoning === 'string' && part.reasoning.length > 0) return part.reasoning;
  const details = Array.isArray(part.details) ? part.details : [];
  return details.map((d) => (isObject(d) && d.type === 'text' ? String(d.text ?? '') : '')).join('');
}

/** One tool invocation as the call and its result, or undefined when it never got a result. */
function invocationParts(invocation: Json, tally: Tally): [Part, ToolResultPart] | undefined {
  const state = String(invocation.state);
  if (state === 'call' || state === 'partial-call') {
    tally.pendingCalls++;
    return undefined;
  }
  const id = String(invocation.toolCallId);
  const name = String(invocation.toolName);
  const call: Part = { type: 'tool-call', id, name, input: invocation.args ?? {} };
  const result: ToolResultPart = { type: 'tool-result', callId: id, name, output: invocation.result };
  if (state === 'output-error')
    Object.assign(result, { output: String(invocation.errorText ?? ''), isError: true });
  else if (state === 'output-denied') {
    const approval = isObject(invocation.approval) ? invocation.approval : {};
    result.output = String(approval.reason ?? 'Tool call was not approved by the user');
  }
  return [call, result];
}

/**
 * One stored message as entries. Keys are Mastra's message id; the later entries of a
 * multi-step assistant message get `<id>#1`, `<id>#2`, ...
 */
function messageEntries(row: MessageRow, content: unknown, firstSeq: number, tally: Tally): Entry[] {
  const role = row.role as Role;
  if (!['user', 'assistant', 'system', 'tool'].includes(role)) {
    bump(tally.skippedRoles, row.role);
    return [];
  }
  const groups: Array<{ role: Role; parts: Part[] }> = [];
  if (typeof content === 'string') groups.push({ role, parts: [{ type: 'text', text: content }] });
  else if (Array.isArray(content)) groups.push(...legacyGroups(role, content, tally));
  else if (isObject(content)) groups.push(...v2Groups(role, content, tally));
  else throw new TranscriptFormatError(`message ${row.id} has content Baton cannot read`);
  return groups
    .filter((g) => g.parts.length > 0)
    .map((g, i) => createEntry(firstSeq + i, g.role, g.parts, i === 0 ? row.id : `${row.id}#${i}`));
}

/** `format: 2` content: text, reasoning and files in order; tool invocations split into call and result at each step. */
function v2Groups(role: Role, content: Json, tally: Tally): Array<{ role: Role; parts: Part[] }> {
  const parts = Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
  const groups: Array<{ role: Role; parts: Part[] }> = [];
  let step: Part[] = [];
  let results: ToolResultPart[] = [];
  const flush = () => {
    groups.push({ role, parts: step });
    if (results.length > 0) groups.push({ role: 'tool', parts: results });
    step = [];
    results = [];
  };
  const hasFiles = parts.some((p) => p.type === 'file');
  const hasReasoning = parts.some((p) => p.type === 'reasoning');
  if (!hasReasoning && typeof content.reasoning === 'string' && content.reasoning.length > 0)
    step.push({
      type: 'opaque',
      kind: 'reasoning',
      value: { reasoning: content.reasoning },
      text: content.reasoning,
    });
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        step.push({ type: 'text', text: String(part.text ?? '') });
        break;
      case 'reasoning': {
        const text = reasoningText(part);
        if (text.length > 0 || (Array.isArray(part.details) && part.details.length > 0))
          step.push({ type: 'opaque', kind: 'reasoning', value: part, text });
        break;
      }
      case 'file':
        step.push(filePart(part, tally));
        break;
      case 'step-start':
        if (step.length > 0 || results.length > 0) flush();
        break;
      case 'tool-invocation': {
        const pair = isObject(part.toolInvocation) ? invocationParts(part.toolInvocation, tally) : undefined;
        if (pair) {
          step.push(pair[0]);
          results.push(pair[1]);
        }
        break;
      }
      default:
        // Sources and data parts are for the UI: Mastra does not send them to the model.
        bump(tally.skippedParts, String(part.type));
    }
  }
  if (parts.length === 0 && typeof content.content === 'string' && content.content.length > 0)
    step.push({ type: 'text', text: content.content });
  if (!hasFiles && Array.isArray(content.experimental_attachments))
    for (const attachment of content.experimental_attachments.filter(isObject))
      step.push(filePart(attachment, tally));
  if (!parts.some((p) => p.type === 'tool-invocation') && Array.isArray(content.toolInvocations))
    for (const invocation of content.toolInvocations.filter(isObject)) {
      const pair = invocationParts(invocation, tally);
      if (pair) {
        step.push(pair[0]);
        results.push(pair[1]);
      }
    }
  flush();
  return groups;
}

/** Content stored by Mastra before `format: 2`: an AI SDK core message's content parts. */
function legacyGroups(role: Role, content: unknown[], tally: Tally): Array<{ role: Role; parts: Part[] }> {
  const parts: Part[] = [];
  for (const part of content.filter(isObject)) {
    if (part.type === 'text') parts.push({ type: 'text', text: String(part.text ?? '') });
    else if (part.type === 'reasoning')
      parts.push({ type: 'opaque', kind: 'reasoning', value: part, text: String(part.text ?? '') });
    else if (part.type === 'tool-call')
      parts.push({
        type: 'tool-call',
        id: String(part.toolCallId),
        name: String(part.toolName),
        input: part.args ?? {},
      });
    else if (part.type === 'tool-result')
      parts.push({
        type: 'tool-result',
        callId: String(part.toolCallId),
        name: String(part.toolName),
        output: part.result,
        ...(part.isError === true ? { isError: true } : {}),
      });
    else if (part.type === 'image')
      parts.push(
        anyProviderImagePart(
          part,
          inlineImageSize(typeof part.image === 'string' ? part.image : undefined),
          undefined,
          tally,
        ),
      );
    else if (part.type === 'file') parts.push(filePart(part, tally));
    else bump(tally.skippedParts, String(part.type));
  }
  return [{ role, parts }];
}

function notesOf(tally: Tally): string[] {
  const notes = [
    'no system prompt: Mastra does not store it (the agent instructions, working memory and semantic recall are added at each call)',
    "the whole thread is read: Mastra's Memory sends only the last `lastMessages` stored messages (10 by default) to each call",
  ];
  if (tally.pendingCalls > 0)
    notes.push(
      `${tally.pendingCalls} tool call(s) without a result left out, as Mastra leaves them out of the prompt`,
    );
  for (const [type, n] of tally.skippedParts)
    notes.push(`${n} ${type} part(s) left out: Mastra does not send them to the model`);
  for (const [role, n] of tally.skippedRoles) notes.push(`${n} message(s) with role ${role} left out`);
  return [...notes, ...imageNote(tally)];
}

/**
 * `mastra-storage`: a `LibSQLStore` file (`mastra_messages`), one thread by `--thread`, else
 * the only or the most recently updated one; every thread is listed with its message count.
 *
 * @example
 * const transcript = mastraStorageReader.read(sessionFile('mastra.db'), { thread: 'support-42' });
 */
export const mastraStorageReader: SessionReader = {
  format: 'mastra-storage',
  mismatch(file) {
    if (!file.isSqlite) return 'not a SQLite file';
    return missingTable(file, 'mastra_messages', MESSAGE_COLUMNS);
  },
  read(file, options) {
    return withSqlite(file, (db) => {
      const rows = threadList(db);
      if (rows.length === 0) throw new TranscriptFormatError('this Mastra storage file holds no messages');
      const threads: ThreadInfo[] = rows.map((t) => ({
        id: t.id,
        label: [
          t.title ? JSON.stringify(t.title) : undefined,
          `${t.messages} messages`,
          t.resourceId ? `resource ${t.resourceId}` : undefined,
          `last ${t.last}`,
        ]
          .filter((s) => s !== undefined)
          .join(', '),
        messages: t.messages,
      }));
      const thread = chooseThread(threads, options.thread, 'Mastra storage file');
      const messages = db
        .prepare(
          `SELECT id, content, role, "createdAt" FROM mastra_messages WHERE thread_id = ? ORDER BY "createdAt", rowid`,
        )
        .all(thread.id) as unknown as MessageRow[];
      const tally: Tally = { unsized: 0, pendingCalls: 0, skippedParts: new Map(), skippedRoles: new Map() };
      const entries: Entry[] = [];
      for (const row of messages) {
        let content: unknown = row.content;
        try {
          content = JSON.parse(row.content);
        } catch {
          // Mastra keeps plain text content as it is.
        }
        entries.push(...messageEntries(row, content, entries.length, tally));
      }
      return {
        format: 'mastra-storage',
        entries,
        ...(rows.length > 1 ? { threads } : {}),
        thread: thread.id,
        notes: notesOf(tally),
      };
    });
  },
};

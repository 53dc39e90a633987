import { createEntry, type Entry, type Part, type Role } from '@baton/core';
import { assistantParts, BlockTally, imagePart, otherPart, toolResultParts } from './anthropic-blocks.ts';
import { isObject, type Json } from './json.ts';
import { jsonLines, type SessionReader, type ThreadInfo, TranscriptFormatError } from './session-file.ts';

/** A line of the conversation: a user or assistant message with Claude Code's bookkeeping. */
const isConversationLine = (v: unknown): v is Json =>
  isObject(v) &&
  (v.type === 'user' || v.type === 'assistant') &&
  typeof v.uuid === 'string' &&
  isObject(v.message) &&
  ('sessionId' in v || 'parentUuid' in v);

interface Draft {
  role: Role;
  parts: Part[];
  key: string;
}

interface ThreadBuild {
  /** `main`, or `sidechain-N` once chains without a message are left out. */
  id: string;
  drafts: Draft[];
  /** Assistant drafts by `message.id`: Claude Code writes each content block of a response on its own line. */
  byMessageId: Map<string, Draft>;
}

/** What the reader left out or could only estimate, for the notes. */
class Tally extends BlockTally {
  duplicates = 0;
  abandoned = 0;
  readonly skipped = new Map<string, number>();
  compactSummaries = 0;
  synthetic = 0;
}

const list = (map: Map<string, number>) => [...map].map(([k, n]) => `${k} ${n}`).join(', ');

/**
 * Main-thread lines off the conversation's active branch. Claude Code's lines form a tree
 * (`parentUuid`): rewinding or editing an earlier message starts a new branch and leaves the old
 * one in the file, so file order would replay turns the model never saw together. The active
 * branch is the path from the last conversation line back to the root (`logicalParentUuid`
 * bridges a compaction boundary). Nothing is left out when there is no fork, or when the chain
 * is broken before the root (an older or trimmed file): then file order is all there is.
 */
function abandonedLines(values: readonly unknown[]): Set<string> {
  const main = values.filter(
    (v): v is Json => isObject(v) && typeof v.uuid === 'string' && v.isSidechain !== true,
  );
  const byUuid = new Map(main.map((v) => [v.uuid as string, v]));
  const children = new Map<string, number>();
  for (const v of byUuid.values()) {
    const parent = typeof v.parentUuid === 'string' ? v.parentUuid : undefined;
    if (parent !== undefined && (v.type === 'user' || v.type === 'assistant'))
      children.set(parent, (children.get(parent) ?? 0) + 1);
  }
  // Repeated lines (the same uuid twice) are not forks.
  const forked = [...children.values()].some((n) => n > 1);
  const last = main.findLast((v) => v.type === 'user' || v.type === 'assistant');
  if (!forked || !last) return new Set();
  const path = new Set<string>();
  let at: Json | undefined = last;
  while (at && !path.has(at.uuid as string)) {
    path.add(at.uuid as string);
    const parent =
      typeof at.parentUuid === 'string'
        ? at.parentUuid
        : typeof at.logicalParentUuid === 'string'
          ? at.logicalParentUuid
          : undefined;
    if (parent === undefined) break; // the root: the path is whole
    at = byUuid.get(parent);
    if (!at) return new Set(); // broken chain: keep file order
  }
  return new Set(main.map((v) => v.uuid as string).filter((uuid) => !path.has(uuid)));
}

/** The first words of a thread's opening request, for its label. */
function opening(drafts: readonly Draft[]): string {
  const first = drafts.find((d) => d.role === 'user');
  const text = (first?.parts ?? [])
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const words = text.split(' ');
  return words.length > 8 ? `${words.slice(0, 8).join(' ')}…` : text || '(no prompt)';
}

/** What the reader did that a user should know, for the thread it read. */
function notesOf(entries: readonly Entry[], tally: Tally, incompleteLine: number | undefined): string[] {
  const calls = new Set<string>();
  const answered = new Set<string>();
  let thinking = 0;
  for (const entry of entries)
    for (const part of entry.parts) {
      if (part.type === 'tool-call') calls.add(part.id);
      else if (part.type === 'tool-result') answered.add(part.callId);
      else if (part.type === 'opaque' && part.kind === 'thinking') thinking++;
    }
  const unanswered = [...calls].filter((id) => !answered.has(id)).length;
  const orphans = [...answered].filter((id) => !calls.has(id)).length;
  const notes: string[] = [];
  if (incompleteLine !== undefined)
    notes.push(`line ${incompleteLine} is incomplete (the session was still being written): skipped`);
  notes.push('no system prompt: Claude Code does not record its system prompt or tool schemas');
  if (tally.duplicates > 0) notes.push(`${tally.duplicates} duplicated line(s) (same uuid) dropped`);
  if (tally.abandoned > 0)
    notes.push(
      `${tally.abandoned} line(s) of abandoned branches (a rewind or an edited message) left out: the model never saw them with the rest`,
    );
  if (tally.skipped.size > 0) notes.push(`lines not sent to the model skipped: ${list(tally.skipped)}`);
  if (tally.compactSummaries > 0)
    notes.push(
      `${tally.compactSummaries} Claude Code compaction summaries left out: the whole recorded history is read instead`,
    );
  if (tally.synthetic > 0)
    notes.push(`${tally.synthetic} synthetic assistant messages (API errors Claude Code wrote) left out`);
  if (thinking > 0) notes.push(`${thinking} thinking blocks kept, counted as text`);
  if (unanswered > 0)
    notes.push(
      `${unanswered} tool call(s) without a recorded result (interrupted): Baton answers them with its missing-result placeholder`,
    );
  if (orphans > 0)
    notes.push(`${orphans} tool result(s) without their call in this thread: Baton leaves them out`);
  if (tally.unknownImages > 0)
    notes.push(`${tally.unknownImages} images of unknown size counted at the default opaque cost`);
  if (tally.opaque.size > 0) notes.push(`blocks kept at the default opaque cost: ${list(tally.opaque)}`);
  return notes;
}

/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).
 *
 * Claude Code writes one line per content block of a model response: assistant lines with the
 * same `message.id` are merged into one entry (keyed by that id). A line repeated with the same
 * `uuid` is dropped. Sub-agents (the Task tool) run as sidechains (`isSidechain: true`) in the
 * same file, each its own chain of `parentUuid` links from a root (or its own `agentId`):
 * threads `main` and `sidechain-1`, `sidechain-2`, ... in order of first appearance, the main
 * thread by default (or the first sidechain when the file holds no main thread).
 *
 * What the model saw, and so what is kept: user lines, `isMeta` ones included (the expanded
 * slash-command prompt, the local-command caveat: Claude Code sends them), the interrupt
 * markers ("[Request interrupted by user...]", also sent), consecutive user lines merged into
 * one entry as Claude Code merges them for the API; thinking blocks as opaque parts counted
 * through their text; images costed by Anthropic's rule from their real size, never as text.
 * Left out, with a note: `summary` lines (session titles), `system` lines and other bookkeeping
 * (hook output, compaction boundaries, file snapshots: shown to the user, not sent), synthetic
 * assistant messages (`model: '<synthetic>'`: API errors Claude Code wrote itself), and
 * compaction summaries (`isCompactSummary`): a replay reads the whole recorded history and
 * lets Baton decide what to compact. Claude Code records no system prompt.
 *
 * @example readSession('fe5e1c67.jsonl', { thread: 'sidechain-1' }) // a sub-agent's conversation
 */
export const claudeCodeReader: SessionReader = {
  format: 'claude-code',
  mismatch(file) {
    if (file.isSqlite) return 'a SQLite database';
    const { lines, bad } = jsonLines(file.text, 20);
    if (lines.length === 0) return bad ? `not JSONL (line ${bad.line} is not JSON)` : 'an empty file';
    if (lines.some((l) => isConversationLine(l.value))) return undefined;
    return `no user or assistant line with a uuid, sessionId and message in the first ${lines.length} lines`;
  },
  read(file, options) {
    const { lines, bad } = jsonLines(file.text);
    if (bad && !bad.last)
      throw new TranscriptFormatError(`Claude Code session line ${bad.line} is not JSON (${bad.message})`);
    const tally = new Tally();

    // Tool names by call id, from every response: a result may be written before the block that names its call is merged.
    const names = new Map<string, string>();
    for (const { value } of lines) {
      if (!isObject(value) || value.type !== 'assistant' || !isObject(value.message)) continue;
      const content = value.message.content;
      if (!Array.isArray(content)) continue;
      for (const block of content)
        if (isObject(block) && block.type === 'tool_use' && typeof block.id === 'string')
          names.set(block.id, String(block.name));
    }

    const threads = new Map<string, ThreadBuild>();
    const threadOfUuid = new Map<string, string>();
    const threadFor = (value: Json, line: number): ThreadBuild => {
      let key = 'main';
      if (value.isSidechain === true) {
        const parent = typeof value.parentUuid === 'string' ? threadOfUuid.get(value.parentUuid) : undefined;
        key =
          typeof value.agentId === 'string'
            ? `agent:${value.agentId}`
            : parent !== undefined && parent !== 'main'
              ? parent
              : `root:${String(value.uuid ?? line)}`;
      }
      if (typeof value.uuid === 'string') threadOfUuid.set(value.uuid, key);
      let thread = threads.get(key);
      if (!thread) {
        thread = { id: key, drafts: [], byMessageId: new Map() };
        threads.set(key, thread);
      }
      return thread;
    };

    const seen = new Set<string>();
    const abandoned = abandonedLines(lines.map((l) => l.value));
    for (const { value, line } of lines) {
      const where = `Claude Code session line ${line}`;
      if (!isObject(value)) throw new TranscriptFormatError(`${where}: not a JSON object`);
      const uuid = typeof value.uuid === 'string' ? value.uuid : undefined;
      if (uuid !== undefined) {
        if (seen.has(uuid)) {
          tally.duplicates++;
          continue;
        }
        seen.add(uuid);
        if (abandoned.has(uuid)) {
          tally.abandoned++;
          continue;
        }
      }
      if (value.type !== 'user' && value.type !== 'assistant') {
        // Kept in the chains (a sidechain's next line may hang off it), never sent to the model.
        if (uuid !== undefined) threadFor(value, line);
        tally.count(tally.skipped, typeof value.type === 'string' ? value.type : 'untyped');
        continue;
      }
      const message = value.message;
      if (!isObject(message))
        throw new TranscriptFormatError(`${where}: ${value.type} line without a message`);
      const thread = threadFor(value, line);
      if (value.isCompactSummary === true || value.isVisibleInTranscriptOnly === true) {
        tally.compactSummaries++;
        continue;
      }
      if (value.type === 'assistant') {
        if (message.model === '<synthetic>') {
          tally.synthetic++;
          continue;
        }
        const parts = assistantParts(message.content, where, tally);
        const id = typeof message.id === 'string' ? message.id : undefined;
        const open = id === undefined ? undefined : thread.byMessageId.get(id);
        if (open) open.parts.push(...parts);
        else {
          const draft: Draft = { role: 'assistant', parts, key: id ?? uuid ?? `line-${line}` };
          thread.drafts.push(draft);
          if (id !== undefined) thread.byMessageId.set(id, draft);
        }
        continue;
      }
      const content = message.content;
      const blocks: unknown[] =
        typeof content === 'string' ? [{ type: 'text', text: content }] : (content as unknown[]);
      if (!Array.isArray(blocks))
        throw new TranscriptFormatError(`${where}: message.content is not a list of blocks`);
      const userParts: Part[] = [];
      let results = 0;
      blocks.forEach((block, index) => {
        if (!isObject(block) || typeof block.type !== 'string')
          throw new TranscriptFormatError(`${where}: content block ${index} is not an object with a type`);
        if (block.type === 'tool_result') {
          const key = `${uuid ?? `line-${line}`}${results++ === 0 ? '' : `#${results}`}`;
          thread.drafts.push({ role: 'tool', parts: toolResultParts(block, names, where, tally), key });
        } else if (block.type === 'text') userParts.push({ type: 'text', text: String(block.text ?? '') });
        else if (block.type === 'image') userParts.push(imagePart(block, tally));
        else userParts.push(otherPart(block, tally));
      });
      if (userParts.length === 0) continue;
      const last = thread.drafts.at(-1);
      if (last?.role === 'user') last.parts.push(...userParts);
      else thread.drafts.push({ role: 'user', parts: userParts, key: uuid ?? `line-${line}` });
    }

    // Numbered once chains of bookkeeping lines only are left out, so the ids have no gaps.
    let sidechains = 0;
    const all = [...threads.values()]
      .filter((t) => t.drafts.length > 0)
      .map((t) => ({ ...t, id: t.id === 'main' ? 'main' : `sidechain-${++sidechains}` }));
    if (all.length === 0)
      throw new TranscriptFormatError('the Claude Code session holds no user or assistant message');
    const wanted = options.thread;
    const chosen =
      all.find((t) => t.id === (wanted ?? 'main')) ?? (wanted === undefined ? all[0] : undefined);
    if (!chosen)
      throw new TranscriptFormatError(
        `--thread: no thread ${JSON.stringify(wanted)} in this session; its threads: ${all.map((t) => t.id).join(', ')}`,
      );
    const entries: Entry[] = chosen.drafts.map((draft, seq) =>
      createEntry(seq, draft.role, draft.parts, draft.key),
    );
    const infos: ThreadInfo[] = all.map((t) => ({
      id: t.id,
      label:
        t.id === 'main'
          ? `main thread, ${t.drafts.length} messages`
          : `sub-agent: ${opening(t.drafts)}, ${t.drafts.length} messages`,
      messages: t.drafts.length,
    }));

    const notes = notesOf(entries, tally, bad?.line);
    return {
      format: 'claude-code',
      entries,
      ...(infos.length > 1 ? { threads: infos, thread: chosen.id } : {}),
      notes,
    };
  },
};

import { isObject, type Json } from './json.ts';
import { isResponsesItem, type LocatedItem, responsesItemsToEntries } from './responses-items.ts';
import { jsonLines, type SessionReader, TranscriptFormatError } from './session-file.ts';

/** Line types of the wrapped rollout form (`{ timestamp, type, payload }`, Codex 0.3x and later). */
const WRAPPED_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const isWrapped = (v: unknown): v is Json =>
  isObject(v) && typeof v.type === 'string' && WRAPPED_TYPES.has(v.type) && isObject(v.payload);
/** The first line of the bare form (Codex before 0.3x): `{ id, timestamp, instructions?, git? }`. */
const isBareMeta = (v: unknown): v is Json =>
  isObject(v) && v.type === undefined && typeof v.id === 'string' && typeof v.timestamp === 'string';
/** Bare-form bookkeeping lines: `{ record_type: 'state' }`. */
const isBareState = (v: unknown) => isObject(v) && typeof v.record_type === 'string';

/** The system prompt a rollout records: `instructions` when set, else `base_instructions.text` (newer rollouts). */
function instructionsOf(meta: Json): string | undefined {
  if (typeof meta.instructions === 'string' && meta.instructions.length > 0) return meta.instructions;
  const base = meta.base_instructions;
  if (isObject(base) && typeof base.text === 'string' && base.text.length > 0) return base.text;
  return undefined;
}

/**
 * Codex rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), both forms: wrapped
 * lines `{ timestamp, type, payload }` where only `response_item` payloads are model input
 * (`session_meta` gives the system prompt when it records one; `event_msg` and
 * `turn_context` are UI and settings), and the older bare form where each line is the item.
 * Items convert through `responsesItemsToEntries`, shared with the `openai-responses` reader.
 *
 * What the model saw, and so what is kept: every `response_item` (the environment context and
 * AGENTS.md messages Codex sends as user messages included); reasoning items as opaque parts
 * counted at their summary text (the encrypted reasoning is not countable). A `compacted` line
 * (Codex's own compaction) is skipped with a note: a replay reads the whole recorded history
 * and lets Baton decide what to compact.
 *
 * @example readSession('rollout-2025-09-19T09-02-12.jsonl') // { format: 'codex', entries }
 */
export const codexReader: SessionReader = {
  format: 'codex',
  mismatch(file) {
    if (file.isSqlite) return 'a SQLite database';
    const { lines, bad } = jsonLines(file.text, 5);
    if (lines.length === 0) return bad ? `not JSONL (line ${bad.line} is not JSON)` : 'an empty file';
    if (lines.some((l) => isWrapped(l.value))) return undefined;
    const first = lines[0]!.value;
    if (
      (isBareMeta(first) || isResponsesItem(first)) &&
      lines.some((l) => isResponsesItem(l.value)) &&
      lines.every((l) => isResponsesItem(l.value) || isBareMeta(l.value) || isBareState(l.value))
    )
      return undefined;
    const type = isObject(first) ? first.type : undefined;
    return `line 1 is ${isObject(first) ? (typeof type === 'string' ? `a ${JSON.stringify(type)} line` : 'an object without a type') : `a JSON ${Array.isArray(first) ? 'array' : typeof first}`}, not a rollout line (session_meta / response_item with a payload, or a Responses item)`;
  },
  read(file, options) {
    if (options.thread !== undefined)
      throw new TranscriptFormatError(
        `--thread: a Codex rollout holds one conversation (no thread ${JSON.stringify(options.thread)})`,
      );
    const { lines, bad } = jsonLines(file.text);
    const notes: string[] = [];
    if (bad && !bad.last)
      throw new TranscriptFormatError(`Codex rollout line ${bad.line} is not JSON (${bad.message})`);
    if (bad) notes.push(`line ${bad.line} is incomplete (the session was still being written): skipped`);
    const wrapped = lines.some((l) => isWrapped(l.value));
    const items: LocatedItem[] = [];
    const skipped = new Map<string, number>();
    let instructions: string | undefined;
    let compactions = 0;
    for (const { value, line } of lines) {
      const where = `Codex rollout line ${line}`;
      if (wrapped) {
        if (!isObject(value) || typeof value.type !== 'string')
          throw new TranscriptFormatError(`${where}: not a rollout line (no type)`);
        const { payload } = value;
        if (value.type === 'response_item' || value.type === 'session_meta') {
          if (!isObject(payload))
            throw new TranscriptFormatError(`${where}: a ${value.type} line without a payload`);
          if (value.type === 'response_item') items.push({ item: payload, where });
          else instructions ??= instructionsOf(payload);
        } else if (value.type === 'compacted') compactions++;
        else skipped.set(value.type, (skipped.get(value.type) ?? 0) + 1);
      } else if (isBareState(value)) skipped.set('state', (skipped.get('state') ?? 0) + 1);
      else if (isBareMeta(value)) instructions ??= instructionsOf(value);
      else items.push({ item: value, where });
    }
    const { entries, notes: itemNotes } = responsesItemsToEntries(items, { instructions });
    if (!instructions) notes.push("no system prompt: the rollout does not record Codex's base instructions");
    if (skipped.size > 0)
      notes.push(
        `lines skipped (not model input): ${[...skipped].map(([type, n]) => `${type} ${n}`).join(', ')}`,
      );
    if (compactions > 0)
      notes.push(
        `Codex compacted this conversation ${compactions} time(s); the whole recorded history is read, its summary left out`,
      );
    return { format: 'codex', entries, notes: [...notes, ...itemNotes] };
  },
};

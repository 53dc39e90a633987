import type { PrepareInput } from '../contracts/prepared.ts';
import { BatonInputError } from '../util/errors.ts';
import type { SeenPrefix } from '../util/seen-prefix.ts';

// `prepare` is the boundary where host data enters the engine. Past it every stage, the
// counter and the hasher trust the types in transcript.ts; an entry that breaks them failed
// deep inside (`parts is not iterable`, gpt-tokenizer's "Model name must be provided" for a
// numeric text) after the state had been loaded. Checked here instead, in one pass with no
// copies: typeof tests on the fields each part type requires. Contents (tool inputs and
// outputs, opaque values) stay `unknown` and are not walked. A session passes the history it
// checked at its last call (`SeenPrefix`): the same entry objects are not checked again. The
// pass costs some 0.2 µs per entry, which over a run of 4,000 calls on a history that grows to
// 8,000 messages was 3 s of a 34 s replay; entries are values (see `Entry`), so an entry is
// checked when it first arrives.

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant', 'tool']);
const SYNTHETIC_KINDS: ReadonlySet<unknown> = new Set([
  'summary',
  'digest',
  'marker',
  'folded',
  'repair',
  'missing-result',
]);

/** What a value is, for the message (its kind, never its content). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** A short quoted form of a value that should have been one of a few names. */
function quoted(value: unknown): string {
  if (typeof value !== 'string') return kindOf(value);
  const text = JSON.stringify(value);
  return text.length > 42 ? `${text.slice(0, 40)}…"` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(path: string, expected: string, received: string, index?: number, entry?: unknown): never {
  const key = isObject(entry) && typeof entry.key === 'string' ? entry.key : undefined;
  const where = key === undefined ? '' : ` (entry key ${quoted(key)})`;
  throw new BatonInputError(
    `[baton] [input] ${path}: expected ${expected}, received ${received}${where}`,
    path,
    index,
    key,
  );
}

// Paths are built only on failure: the passing case (every call) allocates nothing.
const entryPath = (index: number, field?: string) => `entries[${index}]${field ? `.${field}` : ''}`;
const partPath = (index: number, p: number, field?: string) =>
  entryPath(index, `parts[${p}]${field ? `.${field}` : ''}`);

function refuseString(value: unknown, index: number, p: number, field: string, entry: unknown): never {
  refuse(partPath(index, p, field), 'a string', kindOf(value), index, entry);
}

function checkPart(part: unknown, index: number, p: number, entry: unknown): void {
  if (!isObject(part)) refuse(partPath(index, p), 'a part object', kindOf(part), index, entry);
  switch (part.type) {
    case 'text':
      if (typeof part.text !== 'string') refuseString(part.text, index, p, 'text', entry);
      return;
    case 'tool-call':
      if (typeof part.id !== 'string') refuseString(part.id, index, p, 'id', entry);
      if (typeof part.name !== 'string') refuseString(part.name, index, p, 'name', entry);
      return;
    case 'tool-result':
      if (typeof part.callId !== 'string') refuseString(part.callId, index, p, 'callId', entry);
      if (typeof part.name !== 'string') refuseString(part.name, index, p, 'name', entry);
      if (part.isError !== undefined && typeof part.isError !== 'boolean')
        refuse(partPath(index, p, 'isError'), 'a boolean', kindOf(part.isError), index, entry);
      return;
    case 'opaque': {
      if (typeof part.kind !== 'string') refuseString(part.kind, index, p, 'kind', entry);
      if (part.text !== undefined && typeof part.text !== 'string')
        refuseString(part.text, index, p, 'text', entry);
      const { tokens } = part;
      if (tokens !== undefined && !(typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0))
        refuse(
          partPath(index, p, 'tokens'),
          'a finite number of at least 0',
          typeof tokens === 'number' ? String(tokens) : kindOf(tokens),
          index,
          entry,
        );
      return;
    }
    default:
      refuse(
        partPath(index, p, 'type'),
        'one of text, tool-call, tool-result, opaque',
        quoted(part.type),
        index,
        entry,
      );
  }
}

function checkMeta(meta: unknown, index: number, entry: unknown): void {
  if (!isObject(meta)) refuse(entryPath(index, 'meta'), 'an object', kindOf(meta), index, entry);
  const { synthetic, span } = meta;
  if (synthetic !== undefined && !SYNTHETIC_KINDS.has(synthetic))
    refuse(
      entryPath(index, 'meta.synthetic'),
      `one of ${[...SYNTHETIC_KINDS].join(', ')}`,
      quoted(synthetic),
      index,
      entry,
    );
  if (
    span !== undefined &&
    !(
      Array.isArray(span) &&
      span.length === 2 &&
      Number.isSafeInteger(span[0]) &&
      Number.isSafeInteger(span[1])
    )
  )
    refuse(entryPath(index, 'meta.span'), 'a pair of whole numbers', kindOf(span), index, entry);
}

/** Throws `BatonInputError` naming the first field of `entry` that breaks the `Entry` type. */
function checkEntry(entry: unknown, index: number): void {
  if (!isObject(entry)) refuse(entryPath(index), 'an entry object', kindOf(entry), index);
  const { key, seq, role, parts, meta } = entry;
  if (typeof key !== 'string') refuse(entryPath(index, 'key'), 'a string', kindOf(key), index);
  if (!Number.isSafeInteger(seq))
    refuse(
      entryPath(index, 'seq'),
      'a whole number',
      typeof seq === 'number' ? String(seq) : kindOf(seq),
      index,
      entry,
    );
  if (!ROLES.has(role))
    refuse(entryPath(index, 'role'), 'one of system, user, assistant, tool', quoted(role), index, entry);
  if (!Array.isArray(parts)) refuse(entryPath(index, 'parts'), 'an array', kindOf(parts), index, entry);
  for (let p = 0; p < parts.length; p++) checkPart(parts[p], index, p, entry);
  if (meta !== undefined) checkMeta(meta, index, entry);
}

/**
 * Checks a `prepare` input against the types Baton declares (entries, their parts, the system
 * prompt, the tools) and throws `BatonInputError` naming the first field that breaks them. Runs
 * on every call, before the session loads or writes anything: O(entries + parts), no copies;
 * O(new entries) given what `checked` saw at the last call, which it then records.
 * Tool inputs and outputs and opaque values are the host's own and are not inspected.
 *
 * @example
 * checkPrepareInput({ entries: [{ key: 'm1', seq: 0, role: 'user', parts: null }] });
 * // BatonInputError: [baton] [input] entries[0].parts: expected an array, received null (entry key "m1")
 */
export function checkPrepareInput(input: unknown, checked?: SeenPrefix): asserts input is PrepareInput {
  if (!isObject(input)) refuse('input', 'an object with entries', kindOf(input));
  const { entries, system, tools, modelId } = input;
  if (!Array.isArray(entries)) refuse('entries', 'an array of entries', kindOf(entries));
  const known = checked?.known(entries) ?? 0;
  for (let i = known; i < entries.length; i++) checkEntry(entries[i], i);
  checked?.see(entries, known);
  if (system !== undefined && typeof system !== 'string') refuse('system', 'a string', kindOf(system));
  if (modelId === '') refuse('modelId', 'a non-empty string', 'an empty string');
  for (const field of ['modelId', 'provider', 'cannotCapOutput'] as const)
    if (input[field] !== undefined && typeof input[field] !== 'string')
      refuse(field, 'a string', kindOf(input[field]));
  const limit = input.maxOutputTokens;
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) > 0))
    refuse(
      'maxOutputTokens',
      'a positive integer',
      typeof limit === 'number' ? String(limit) : kindOf(limit),
    );
  if (tools === undefined) return;
  if (!Array.isArray(tools)) refuse('tools', 'an array of tool schemas', kindOf(tools));
  for (let t = 0; t < tools.length; t++) {
    const tool: unknown = tools[t];
    if (!isObject(tool)) refuse(`tools[${t}]`, 'a tool schema object', kindOf(tool));
    if (typeof tool.name !== 'string') refuse(`tools[${t}].name`, 'a string', kindOf(tool.name));
    if (tool.description !== undefined && typeof tool.description !== 'string')
      refuse(`tools[${t}].description`, 'a string', kindOf(tool.description));
  }
}

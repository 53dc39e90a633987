import { Hash64 } from '../util/hash.ts';

/** Who produced an entry, in the neutral transcript. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** Parsed arguments when the host gave JSON; the raw string otherwise. */
  input: unknown;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  name: string;
  /** A string, or any JSON value the host produced. */
  output: unknown;
  isError?: boolean;
}

/** Images, reasoning, provider-specific parts: kept verbatim, counted at a fixed or reported cost. */
export interface OpaquePart {
  type: 'opaque';
  kind: string;
  value: unknown;
  /** Reported token cost; the counter's `opaqueTokens` option is used when absent. */
  tokens?: number;
  /** Text the part carries for the model (reasoning, provider tool traffic): counted as text when present. */
  text?: string;
}

export type Part = TextPart | ToolCallPart | ToolResultPart | OpaquePart;

/** What Baton inserted in place of history: never an entry the host wrote. */
export type SyntheticKind = 'summary' | 'digest' | 'marker' | 'folded' | 'repair' | 'missing-result';

export interface EntryMeta {
  /** Set on entries Baton made; absent on host entries. */
  synthetic?: SyntheticKind;
  /** For synthetic entries standing for evicted history: the seq range they replace. */
  span?: [number, number];
  [key: string]: unknown;
}

/**
 * One message of the neutral transcript. An entry is a value: Baton remembers what it learnt of
 * each entry object (its content hash, its token count, that it passed the input check) and
 * which objects a session's last call saw, so a host sending the same history plus new
 * messages costs only the new ones. To change a message, pass a new entry object for it (the
 * adapters build one from each host message); an entry edited in place is not looked at again.
 */
export interface Entry {
  /** Stable identity: the host id when it has one, else `seq-contenthash`. */
  key: string;
  /** Position in the host's full history. */
  seq: number;
  role: Role;
  parts: Part[];
  meta?: EntryMeta;
}

/** Stable JSON of an entry's content (role + parts). */
export function contentOf(role: Role, parts: readonly Part[]): string {
  return role + JSON.stringify(parts);
}

const knownHashes = new WeakMap<object, string>();

/**
 * 64-bit hash of an entry's content (role and parts), streamed field by field so large tool
 * outputs are never copied into one string. Memoized per entry object.
 */
export function contentHash(role: Role, parts: readonly Part[]): string {
  const hash = new Hash64().update(role);
  for (const part of parts) {
    hash.update(part.type);
    switch (part.type) {
      case 'text':
        hash.update(part.text);
        break;
      case 'tool-call':
        hash.update(part.id).update(part.name).update(inputText(part.input));
        break;
      case 'tool-result':
        hash
          .update(part.callId)
          .update(part.name)
          .update(outputText(part.output))
          .update(part.isError ? '1' : '0');
        break;
      case 'opaque':
        hash
          .update(part.kind)
          .update(JSON.stringify(part.value) ?? '')
          .update(part.text ?? '');
        break;
    }
  }
  return hash.digest();
}

/** The content hash of an entry, computed once per entry object. */
export function contentHashOf(entry: Entry): string {
  let hash = knownHashes.get(entry);
  if (hash === undefined) {
    hash = contentHash(entry.role, entry.parts);
    knownHashes.set(entry, hash);
  }
  return hash;
}

/** Convenience constructor for tests, examples and adapters. */
export function createEntry(seq: number, role: Role, parts: Part[] | string, key?: string): Entry {
  const normalized: Part[] = typeof parts === 'string' ? [{ type: 'text', text: parts }] : parts;
  const hash = contentHash(role, normalized);
  const entry: Entry = { key: key ?? `${seq}-${hash}`, seq, role, parts: normalized };
  knownHashes.set(entry, hash);
  return entry;
}

/** The textual form of a tool output, as a model would read it. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output);
  } catch {
    return String(output);
  }
}

/** The textual form of tool-call arguments. */
export function inputText(input: unknown): string {
  return typeof input === 'string' ? input : outputText(input);
}

/** Plain-text rendering of an entry, for search, digests and summaries. */
export function entryText(entry: Entry): string {
  const lines: string[] = [];
  for (const part of entry.parts) {
    if (part.type === 'text') lines.push(part.text);
    else if (part.type === 'tool-call') lines.push(`${part.name}(${inputText(part.input)})`);
    else if (part.type === 'tool-result') lines.push(outputText(part.output));
    else lines.push(`[${part.kind}]`);
  }
  return lines.join('\n');
}

export function toolCalls(entry: Entry): ToolCallPart[] {
  return entry.parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
}

export function toolResults(entry: Entry): ToolResultPart[] {
  return entry.parts.filter((p): p is ToolResultPart => p.type === 'tool-result');
}

export function isSynthetic(entry: Entry): boolean {
  return entry.meta?.synthetic !== undefined && entry.meta.synthetic !== 'folded';
}

/** The first line of a text, trimmed to `max` characters. */
export function firstLine(text: string, max = 80): string {
  const line = text.trimStart().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Whitespace collapsed to single spaces, trimmed to `max` characters (digests, summaries, notices). */
export function squash(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

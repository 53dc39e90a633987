import type { Entry } from '../transcript/transcript.ts';

/**
 * Where one prompt-cache breakpoint sits in a request, in neutral terms. A provider that caches
 * only up to explicit breakpoints (Anthropic `cache_control`, Bedrock `cachePoint`) caches the
 * whole prompt up to and including the marked block, in its order: tools, system, messages.
 * - `tools`: the last tool definition.
 * - `system`: the system text Baton sends (`Prepared.system`: the host's prompt and the notes
 *   block; in the AI SDK's view mode, the notes block's own system message).
 * - `entry`: `entries[index]` of the projection (its last block).
 */
export type CacheBreakpoint = { at: 'tools' } | { at: 'system' } | { at: 'entry'; index: number };

/** A breakpoint the host placed itself; `elsewhere` when it is nowhere Baton would place one (a request-level one, an earlier message). */
export type HostBreakpoint = CacheBreakpoint | { at: 'elsewhere' };

/** Anthropic's cap (and Bedrock's for Claude models): at most 4 breakpoints per request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/**
 * How far back from a breakpoint Anthropic looks for an earlier cache entry: 20 blocks
 * (content blocks: a text, a tool call, a tool result, a thinking block each count one).
 */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

export interface CacheBreakpointInput {
  /** The projection, as sent (`Prepared.entries`): the trailing notices are not among them. */
  entries: readonly Entry[];
  /** The system text sent before the entries ('' when none). */
  system: string;
  /** Tool definitions in the request. */
  tools: number;
  /** The host's own breakpoints on this request, each counted against the cap. Default none. */
  host?: readonly HostBreakpoint[];
  /** Breakpoints the provider honours per request. Default 4 (`ANTHROPIC_MAX_BREAKPOINTS`). */
  cap?: number;
}

/**
 * Block kinds a provider refuses a breakpoint on (Anthropic: thinking blocks are cached with
 * what follows them, never marked): an entry ending in one is not the conversation's breakpoint.
 */
const UNMARKABLE_KINDS = new Set(['reasoning', 'thinking', 'redacted_thinking', 'redacted-reasoning']);

function markable(entry: Entry): boolean {
  const last = entry.parts.at(-1);
  return last !== undefined && !(last.type === 'opaque' && UNMARKABLE_KINDS.has(last.kind));
}

function same(a: HostBreakpoint, b: CacheBreakpoint): boolean {
  return a.at === b.at && (a.at !== 'entry' || (b.at === 'entry' && a.index === b.index));
}

/**
 * The end of the stable prefix: what stays byte-identical between compactions (tools, system
 * prompt, notes block). Undefined when the request has none of them.
 */
export function stablePrefixEnd(input: CacheBreakpointInput): CacheBreakpoint | undefined {
  if (input.system.length > 0) return { at: 'system' };
  // The host's system messages lead the entries when the system text is theirs (AI SDK view mode).
  let leading = -1;
  while (input.entries[leading + 1]?.role === 'system') leading++;
  if (leading >= 0) return { at: 'entry', index: leading };
  return input.tools > 0 ? { at: 'tools' } : undefined;
}

/**
 * Where Baton places its prompt-cache breakpoints on one request (DESIGN.md, provider truth):
 * 1. on the newest conversation message, the last of the projection: the trailing notices come
 *    after it and stay outside the cache (they change every call; a breakpoint on them would
 *    write a cache entry no later call reads). The next call's prompt is this one minus the
 *    notices plus what happened since, so it reads everything up to here from the cache;
 * 2. at the end of the stable prefix (system, tools, notes block), which only a compaction
 *    changes: after one, the conversation's cache misses but the prefix still reads;
 * 3. a bridge, when the model's last reply and what answered it (a batch of parallel tool
 *    calls and their results) take 20 blocks or more: the provider looks for the previous
 *    request's entry at most 20 blocks back from a breakpoint, so without one on the message
 *    the previous request ended with (the one before the newest assistant message) it would
 *    find none and write the whole conversation again.
 * Within the cap counting the host's own: a position the host marked already is not marked
 * twice; when room is short the conversation's comes first (it covers the prefix too, the
 * provider reading back from it), then the prefix's, then the bridge. A pure function of the projection: the same prepared call
 * gives the same breakpoints, so the bytes up to the prefix's breakpoint repeat from call to
 * call until a compaction.
 *
 * @example
 * cacheBreakpoints({ entries: prepared.entries, system: prepared.system, tools: 3 });
 * // [{ at: 'system' }, { at: 'entry', index: 41 }]
 * cacheBreakpoints({ entries, system, tools: 3, host: [{ at: 'tools' }, { at: 'elsewhere' }, { at: 'elsewhere' }] });
 * // [{ at: 'entry', index: 41 }]: 3 of the host's, 1 of Baton's
 */
export function cacheBreakpoints(input: CacheBreakpointInput): CacheBreakpoint[] {
  const host = input.host ?? [];
  let room = (input.cap ?? ANTHROPIC_MAX_BREAKPOINTS) - host.length;
  const prefix = stablePrefixEnd(input);
  const prefixIndex = prefix?.at === 'entry' ? prefix.index : -1;
  let newest = input.entries.length - 1;
  while (newest > prefixIndex && !markable(input.entries[newest]!)) newest--;
  const wanted: CacheBreakpoint[] = [];
  if (newest > prefixIndex) wanted.push({ at: 'entry', index: newest });
  if (prefix) wanted.push(prefix);
  const bridge = bridgeIndex(input.entries, newest, prefixIndex);
  if (bridge !== undefined) wanted.push({ at: 'entry', index: bridge });
  const placed: CacheBreakpoint[] = [];
  for (const breakpoint of wanted) {
    if (room <= 0) break;
    if (host.some((own) => same(own, breakpoint))) continue;
    placed.push(breakpoint);
    room--;
  }
  // In request order (tools, system, messages): how the provider reads them.
  return placed.sort((a, b) => requestOrder(a) - requestOrder(b));
}

/**
 * The message the previous request most likely ended with (the one before the newest
 * assistant message: the model's reply came after it), when it lies 20 blocks or more behind
 * the newest breakpoint; undefined otherwise.
 */
function bridgeIndex(entries: readonly Entry[], newest: number, prefixIndex: number): number | undefined {
  let reply = newest;
  while (reply > prefixIndex && entries[reply]!.role !== 'assistant') reply--;
  let previous = reply - 1;
  while (previous > prefixIndex && !markable(entries[previous]!)) previous--;
  if (reply <= prefixIndex || previous <= prefixIndex) return undefined;
  let blocks = 0;
  for (let i = previous + 1; i <= newest; i++) blocks += entries[i]!.parts.length;
  return blocks >= ANTHROPIC_LOOKBACK_BLOCKS ? previous : undefined;
}

function requestOrder(breakpoint: CacheBreakpoint): number {
  if (breakpoint.at === 'tools') return -2;
  if (breakpoint.at === 'system') return -1;
  return breakpoint.index;
}

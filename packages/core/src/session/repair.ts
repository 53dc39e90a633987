import { isUnfitStepEntry } from '../agent/notices.ts';
import type { BatonEventBody } from '../contracts/events.ts';
import { escapeLoneSurrogates, hasLoneSurrogate } from '../stores/checked-store.ts';
import { type Entry, type Part, type ToolResultPart, toolCalls } from '../transcript/transcript.ts';
import { SeenPrefix } from '../util/seen-prefix.ts';
import type { SessionRecord } from './session-record.ts';

/** Text of the result Baton supplies for a call the host never answered. */
export const MISSING_RESULT_TEXT =
  '[baton] No result was recorded for this tool call (it was interrupted or lost); treat it as not executed.';

export interface RepairResult {
  entries: Entry[];
  /** Host entries that held results without a matching call (archived by the session, then left out). */
  orphaned: Entry[];
  orphanResults: number;
  missingResults: number;
}

/**
 * Makes tool pairing hold before anything else looks at the transcript: a result whose call
 * is not in the assistant message right before it is left out (and archived by the caller),
 * and a call with no result, once later messages exist, gets an explicit placeholder result.
 * Providers reject both shapes with HTTP 400. Returns the input array itself when nothing
 * needed repair.
 */
export function repairTranscript(entries: readonly Entry[]): RepairResult {
  if (!needsRepair(entries))
    return { entries: entries as Entry[], orphaned: [], orphanResults: 0, missingResults: 0 };
  let out: Entry[] | undefined;
  const orphaned: Entry[] = [];
  let orphanResults = 0;
  let missingResults = 0;
  const copyUpTo = (index: number) => {
    out ??= entries.slice(0, index);
    return out;
  };

  let i = 0;
  while (i < entries.length) {
    const entry = entries[i]!;
    if (entry.role !== 'assistant' && entry.role !== 'tool') {
      out?.push(entry);
      i++;
      continue;
    }
    const calls = entry.role === 'assistant' ? toolCalls(entry) : [];
    const groupStart = i;
    if (entry.role === 'assistant') {
      out?.push(entry);
      i++;
    }
    const open = new Map(calls.map((c) => [c.id, c]));
    while (i < entries.length && entries[i]!.role === 'tool') {
      const toolEntry = entries[i]!;
      const kept: Part[] = [];
      let dropped = 0;
      for (const part of toolEntry.parts) {
        if (part.type === 'tool-result' && !open.delete(part.callId)) dropped++;
        else kept.push(part);
      }
      if (dropped === 0) out?.push(toolEntry);
      else {
        const target = copyUpTo(i);
        orphanResults += dropped;
        orphaned.push(toolEntry);
        if (kept.some((p) => p.type === 'tool-result')) {
          target.push({ ...toolEntry, parts: kept, meta: { ...toolEntry.meta, synthetic: 'repair' } });
        }
      }
      i++;
    }
    if (open.size > 0 && i < entries.length && entry.role === 'assistant') {
      const target = copyUpTo(i);
      const results: ToolResultPart[] = [...open.values()].map((call) => ({
        type: 'tool-result',
        callId: call.id,
        name: call.name,
        output: MISSING_RESULT_TEXT,
        isError: true,
      }));
      missingResults += results.length;
      target.push({
        key: `repair-${entries[groupStart]!.key}`,
        seq: entries[groupStart]!.seq,
        role: 'tool',
        parts: results,
        meta: { synthetic: 'missing-result' },
      });
    }
  }
  return { entries: out ?? (entries as Entry[]), orphaned, orphanResults, missingResults };
}

/**
 * The projection as a host may store it (rewrite mode): without the placeholder results
 * repair supplied for unanswered calls. Those exist only so the provider accepts the request;
 * stored, they would answer a call that may still get its real result (a resumed interrupt,
 * an approval) with a fabricated one.
 */
export function storableEntries(entries: readonly Entry[]): Entry[] {
  return entries.filter((entry) => entry.meta?.synthetic !== 'missing-result');
}

/** Where a pairing scan stands: the calls of the last assistant message still open, and whether one can be answered. */
interface Pairing {
  open: string[];
  caller: boolean;
}

/** One allocation-free pass (prepare runs before every model call): is anything unpaired? */
function needsRepair(entries: readonly Entry[]): boolean {
  return unpaired(entries, 0, { open: [], caller: false });
}

/**
 * Whether `entries` from `from` on holds a result without its call or a call left without a
 * result, scanning on from `pairing` (which it advances): a scan resumes where the last call's
 * ended.
 */
function unpaired(entries: readonly Entry[], from: number, pairing: Pairing): boolean {
  // The open calls of one assistant message: a few ids, so a list (a Set rehashed on its
  // deletes, at every call over the whole history, was a measured 115 MB of garbage in a
  // 2,000-message replay).
  const { open } = pairing;
  for (let i = from; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.role === 'tool') {
      for (const part of entry.parts) {
        if (part.type !== 'tool-result') continue;
        const at = pairing.caller ? open.indexOf(part.callId) : -1;
        if (at < 0) return true;
        open[at] = open[open.length - 1]!;
        open.pop();
      }
      continue;
    }
    if (open.length > 0) return true;
    pairing.caller = entry.role === 'assistant';
    if (pairing.caller)
      for (const part of entry.parts)
        if (part.type === 'tool-call' && !open.includes(part.id)) open.push(part.id); // a repeated id is one call, as in repair
  }
  return false;
}

/**
 * Gives every entry its own key: a host that reuses an id (two messages with the same id, a
 * copy pasted back) would otherwise have one of them folded, summarized or archived as the
 * other. A repeated key gets its occurrence, `id~2`, `id~3`, deterministic for the same
 * history; the array is returned as it is when every key is unique (the common case).
 */
export function distinctKeys(entries: readonly Entry[]): Entry[] {
  const seen = new Map<string, number>();
  let out: Entry[] | undefined;
  entries.forEach((entry, index) => {
    // A host id with a lone surrogate becomes a recall ref no store can keep apart from another
    // (SQLite and Postgres write both as U+FFFD): it is escaped first, then counted like any key.
    const base = hasLoneSurrogate(entry.key) ? escapeLoneSurrogates(entry.key) : entry.key;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    if (count === 1 && base === entry.key) {
      out?.push(entry);
      return;
    }
    out ??= entries.slice(0, index);
    let key = count === 1 ? base : `${base}~${count}`;
    // A host key may itself look like `id~2`: keep counting until the key is free.
    for (let n = count; count > 1 && seen.has(key); ) key = `${base}~${++n}`;
    seen.set(key, 1);
    out.push({ ...entry, key });
  });
  return out ?? (entries as Entry[]);
}

/**
 * The last history `repairInput` passed as it was (no unfit step, distinct keys, every call
 * answered) and where its pairing scan ended: a session's next call, the same history plus new
 * messages, is checked for those three over its new messages only.
 */
export class SoundHistory {
  readonly seen = new SeenPrefix();
  pairing: Pairing = { open: [], caller: false };
  /**
   * The keys of the seen history, each once: a new entry's key is checked against them,
   * instead of a map of every key built at each call (garbage one call later, growing with
   * the run).
   */
  keys = new Set<string>();

  /** `entries` passed as they are: they are the history the next call extends. */
  sawSound(entries: readonly Entry[], pairing: Pairing): void {
    this.seen.see(entries, 0);
    this.pairing = pairing;
    this.keys = new Set(entries.map((entry) => entry.key));
  }

  /** The history needed repair: the next call takes the full pass. */
  forget(): void {
    this.seen.forget();
    this.pairing = { open: [], caller: false };
    this.keys = new Set();
  }
}

/**
 * Whether the keys of `entries` from `known` on are new to `keys` and to each other, and need
 * no escaping, as `distinctKeys` would leave them (added to `keys` if so, else `keys` is left
 * as it was).
 */
function newKeysDistinct(entries: readonly Entry[], known: number, keys: Set<string>): boolean {
  for (let i = known; i < entries.length; i++) {
    const key = entries[i]!.key;
    if (keys.has(key) || hasLoneSurrogate(key)) {
      for (let j = known; j < i; j++) keys.delete(entries[j]!.key);
      return false;
    }
    keys.add(key);
  }
  return true;
}

/** `entries` without the replies of unfit steps a host stored: the array itself when there are none. */
function withoutUnfitSteps(entries: readonly Entry[], from = 0): Entry[] {
  for (let i = from; i < entries.length; i++)
    if (isUnfitStepEntry(entries[i]!)) return entries.filter((e) => !isUnfitStepEntry(e));
  return entries as Entry[];
}

/** Whether the new entries of a history whose first `known` passed as they were pass too (advancing `sound`). */
function staysSound(entries: readonly Entry[], known: number, sound: SoundHistory): boolean {
  const pairing = { open: [...sound.pairing.open], caller: sound.pairing.caller };
  if (withoutUnfitSteps(entries, known) !== entries || unpaired(entries, known, pairing)) return false;
  if (!newKeysDistinct(entries, known, sound.keys)) return false;
  sound.pairing = pairing;
  return true;
}

/**
 * The host's entries as a transcript the provider accepts: orphaned results archived (then
 * left out), missing results answered, an unfit step's stored reply dropped (the unfit notice
 * tells the model instead). Given the session's `sound` history, a history that extends it
 * is looked at from its new entries on.
 */
export async function repairInput(
  entries: readonly Entry[],
  record: SessionRecord,
  emit: (event: BatonEventBody) => void,
  sound?: SoundHistory,
): Promise<Entry[]> {
  const known = sound?.seen.known(entries) ?? 0;
  if (sound && known > 0 && staysSound(entries, known, sound)) {
    sound.seen.see(entries, known);
    return entries as Entry[];
  }
  const visible = withoutUnfitSteps(entries);
  const distinct = distinctKeys(visible);
  const pairing: Pairing = { open: [], caller: false };
  if (sound && distinct === entries && !unpaired(entries, 0, pairing)) {
    sound.sawSound(entries, pairing);
    return entries as Entry[];
  }
  sound?.forget();
  const repaired = repairTranscript(distinct);
  if (repaired.orphaned.length > 0 || repaired.missingResults > 0) {
    await record.archiveOutside(repaired.orphaned, 'repair', emit);
    emit({
      type: 'transcript-repaired',
      orphanResults: repaired.orphanResults,
      missingResults: repaired.missingResults,
      refs: repaired.orphaned.map((e) => e.key),
    });
  }
  return repaired.entries;
}

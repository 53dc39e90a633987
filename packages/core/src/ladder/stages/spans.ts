import type { ReplaceDecision } from '../../ledger/ledger.ts';
import type { Group } from '../../transcript/groups.ts';
import { seqRange } from '../../transcript/seq-ranges.ts';
import type { Entry, Role, SyntheticKind } from '../../transcript/transcript.ts';
import { hash64 } from '../../util/hash.ts';

/** The exact recall call that brings a range back, as the agent should type it. */
export function recallRangeHint(from: number, to: number): string {
  return `recall({ "from": ${from}, "to": ${to} })`;
}

export function recallRefHint(ref: string): string {
  return `recall({ "ref": ${JSON.stringify(ref)} })`;
}

/** Splits selected groups into runs of adjacent ones (each run becomes one replacement). */
export function adjacentRuns(selected: readonly Group[], all: readonly Group[]): Group[][] {
  const index = new Map(all.map((g, i) => [g, i]));
  const sorted = [...selected].sort((a, b) => index.get(a)! - index.get(b)!);
  const runs: Group[][] = [];
  for (const group of sorted) {
    const run = runs.at(-1);
    const previous = run?.at(-1);
    if (run && previous && index.get(group)! === index.get(previous)! + 1) run.push(group);
    else runs.push([group]);
  }
  return runs;
}

/** A replace decision whose single synthetic entry stands for `groups`, keyed deterministically. */
export function replaceWith(
  stage: string,
  groups: readonly Group[],
  kind: SyntheticKind,
  role: Role,
  text: (range: [number, number], entries: Entry[]) => string,
): ReplaceDecision {
  const entries = groups.flatMap((g) => g.entries);
  const keys = entries.map((e) => e.key);
  const range = seqRange(entries);
  const synthetic: Entry = {
    key: `${kind}-${range[0]}-${range[1]}-${hash64(keys.join('\u0000')).slice(0, 8)}`,
    seq: entries[0]!.seq,
    role,
    parts: [{ type: 'text', text: text(range, entries) }],
    meta: { synthetic: kind, span: range },
  };
  return { kind: 'replace', stage, keys, entries: [synthetic] };
}

/** The recall ref of one tool result: the entry key, plus `#callId` when the entry holds several results. */
export function resultRef(entry: Entry, callId: string): string {
  const results = entry.parts.filter((p) => p.type === 'tool-result').length;
  return results > 1 ? `${entry.key}#${callId}` : entry.key;
}

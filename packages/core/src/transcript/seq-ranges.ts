import type { Entry } from './transcript.ts';

/** Seq range covered by entries, widened by the spans synthetic entries already stand for. */
export function seqRange(entries: readonly Entry[]): [number, number] {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const entry of entries) {
    const [a, b] = entry.meta?.span ?? [entry.seq, entry.seq];
    from = Math.min(from, a);
    to = Math.max(to, b);
  }
  return [from, to];
}

/**
 * How many host messages entries stand for: the seqs they cover, each once (a summary, digest
 * or marker covers the range it replaced); a placeholder Baton added for a missing result
 * stands for none.
 */
export function messagesHeld(entries: readonly Entry[]): number {
  const ranges = entries
    .filter((entry) => entry.meta?.synthetic !== 'missing-result')
    .map((entry): [number, number] => entry.meta?.span ?? [entry.seq, entry.seq])
    .sort((a, b) => a[0] - b[0]);
  let held = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of ranges) {
    if (to <= end) continue;
    held += to - Math.max(from, end + 1) + 1;
    end = to;
  }
  return held;
}

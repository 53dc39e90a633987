import type { Entry, Part } from './transcript.ts';

/** Replace the parts of one entry (its key stays): a fold, or a degrade preview. */
export interface FoldDecision {
  kind: 'fold';
  stage: string;
  key: string;
  parts: Part[];
  /** Seq range of the host entries it evicted (set when the ladder accepts it). */
  span?: [number, number];
}

/** Replace a contiguous run of entries with zero or more synthetic entries (digest, summary, marker). */
export interface ReplaceDecision {
  kind: 'replace';
  stage: string;
  keys: string[];
  entries: Entry[];
  /** Seq range of the host entries it evicted (set when the ladder accepts it). */
  span?: [number, number];
}

export type Decision = FoldDecision | ReplaceDecision;

/** The persisted list of decisions of one session, oldest first. */
export interface Ledger {
  decisions: Decision[];
}

type Action = { decision: Decision };

/** Folded entry objects per decision, so repeated projections reuse the same objects (memo hits, stable bytes). */
const foldedEntries = new WeakMap<FoldDecision, Entry>();

function foldedEntry(original: Entry, decision: FoldDecision): Entry {
  const cached = foldedEntries.get(decision);
  if (cached && cached.seq === original.seq) return cached;
  const entry: Entry = {
    ...original,
    parts: decision.parts,
    meta: { ...original.meta, synthetic: 'folded' },
  };
  foldedEntries.set(decision, entry);
  return entry;
}

/**
 * Applies decisions to a history in one pass: O(entries + decision keys), deterministic.
 * Later decisions win for a key, and a decision may consume the synthetic output of an
 * earlier one (a summary that absorbs an older summary): emission recurses through them.
 * Keys the history no longer has are ignored, so a ledger never breaks a projection.
 */
export function applyLedger(entries: readonly Entry[], decisions: readonly Decision[]): Entry[] {
  if (decisions.length === 0) return entries as Entry[];
  const actions = new Map<string, Action>();
  for (const decision of decisions) {
    if (decision.kind === 'fold') actions.set(decision.key, { decision });
    else for (const key of decision.keys) actions.set(key, { decision });
  }
  const out: Entry[] = [];
  const emitted = new Set<ReplaceDecision>();
  const emit = (entry: Entry, depth: number): void => {
    const action = actions.get(entry.key);
    if (!action || depth > 64) {
      out.push(entry);
      return;
    }
    const { decision } = action;
    if (decision.kind === 'fold') {
      out.push(foldedEntry(entry, decision));
      return;
    }
    // The replacement stands where the first still-present key of its run stood.
    if (emitted.has(decision)) return;
    emitted.add(decision);
    for (const replacement of decision.entries) emit(replacement, depth + 1);
  };
  for (const entry of entries) emit(entry, 0);
  return out;
}

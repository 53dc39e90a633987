import { contentHashOf, type Entry, type Part } from '../transcript/transcript.ts';

/** Replace the parts of one entry (its key stays): a fold, or a degrade preview. */
export interface FoldDecision {
  kind: 'fold';
  stage: string;
  key: string;
  parts: Part[];
  /** Seq range of the host entries it evicted (set when the ladder accepts it). */
  span?: [number, number];
  /** Content hash of the host entry it folded (set when it is kept): an edited entry is new. */
  hash?: string;
}

/** Replace a contiguous run of entries with zero or more synthetic entries (digest, summary, marker). */
export interface ReplaceDecision {
  kind: 'replace';
  stage: string;
  keys: string[];
  entries: Entry[];
  /** Seq range of the host entries it evicted (set when the ladder accepts it). */
  span?: [number, number];
  /** Content hash of each host entry it replaced, by key (set when it is kept). */
  hashes?: Record<string, string>;
}

export type Decision = FoldDecision | ReplaceDecision;

/** The persisted list of decisions of one session, oldest first. */
export interface Ledger {
  decisions: Decision[];
}

type Action = { decision: Decision; hash: string | undefined };

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

/** Edited entries under their own key, per host object (stable identity, stable bytes). */
const rekeyed = new WeakMap<Entry, Entry>();

/**
 * A host entry whose content changed since a decision acted on its key (an edit under the same
 * id) is not what was evicted: it is shown as it is now, under a key of its own
 * (`id~<content hash>`), so its own eviction is archived beside the old content instead of
 * being taken for it. A host that holds the fold Baton wrote back (rewrite mode) keeps it as is.
 */
function editedEntry(entry: Entry, decision: Decision): Entry {
  // Compared through the memoized fold object: rewrite mode meets it on every call.
  if (decision.kind === 'fold' && contentHashOf(foldedEntry(entry, decision)) === contentHashOf(entry))
    return entry;
  let edited = rekeyed.get(entry);
  if (!edited) {
    edited = { ...entry, key: `${entry.key}~${contentHashOf(entry).slice(0, 12)}` };
    rekeyed.set(entry, edited);
  }
  return edited;
}

/** Whether the action for this entry removes it from the projection (a replace that still matches it). */
function removes(entry: Entry, actions: ReadonlyMap<string, Action>): boolean {
  const action = actions.get(entry.key);
  return (
    action !== undefined &&
    action.decision.kind === 'replace' &&
    (action.hash === undefined || action.hash === contentHashOf(entry))
  );
}

/**
 * Entries a replace would remove from a tool group that it does not remove whole: an assistant
 * message with tool calls, or its results, changed since the decision (its key with it: hosts
 * without ids key by content) while the rest of the group did not. Removing only the unchanged
 * part would leave calls without results, or results without their call, which providers
 * refuse (HTTP 400); the group is shown whole, as it is now, instead.
 */
function splitGroupMembers(entries: readonly Entry[], actions: ReadonlyMap<string, Action>): Set<Entry> {
  const shown = new Set<Entry>();
  let i = 0;
  // Counted in place, not sliced and filtered: this runs over the whole history at every call.
  while (i < entries.length) {
    let end = i + 1;
    if (entries[i]!.role === 'assistant' && entries[i]!.parts.some((part) => part.type === 'tool-call')) {
      while (end < entries.length && entries[end]!.role === 'tool') end++;
      let removed = 0;
      for (let k = i; k < end; k++) if (removes(entries[k]!, actions)) removed++;
      if (removed > 0 && removed < end - i)
        for (let k = i; k < end; k++) if (removes(entries[k]!, actions)) shown.add(entries[k]!);
    }
    i = end;
  }
  return shown;
}

/** Which decision acts on each key (later decisions win), and whether any of them replaces. */
function actionsOf(decisions: readonly Decision[]): { actions: Map<string, Action>; replaces: boolean } {
  const actions = new Map<string, Action>();
  let replaces = false;
  for (const decision of decisions) {
    if (decision.kind === 'fold') actions.set(decision.key, { decision, hash: decision.hash });
    else {
      replaces = true;
      for (const key of decision.keys) actions.set(key, { decision, hash: decision.hashes?.[key] });
    }
  }
  return { actions, replaces };
}

/**
 * The actions of a kept ledger, built once per decisions array: a session applies the same
 * ledger at every call until a commit replaces the array (`SessionRecord.commit`), and
 * rebuilding a map of every evicted key at each call made garbage that grew with the run
 * (a map of thousands of keys per call, in V8's large-object space). A kept ledger's
 * decisions are never edited in place (`bindToContent` binds a ladder's fresh decisions
 * before they are committed); the ladder's own proposals are applied uncached.
 */
const keptActionsCache = new WeakMap<readonly Decision[], ReturnType<typeof actionsOf>>();
export function keptActions(decisions: readonly Decision[]): ReturnType<typeof actionsOf> {
  let cached = keptActionsCache.get(decisions);
  if (!cached) {
    cached = actionsOf(decisions);
    keptActionsCache.set(decisions, cached);
  }
  return cached;
}

/**
 * Applies decisions to a history in one pass: O(entries + decision keys), deterministic.
 * Later decisions win for a key, and a decision may consume the synthetic output of an
 * earlier one (a summary that absorbs an older summary): emission recurses through them.
 * Keys the history no longer has, or holds with other content, are ignored, so a ledger never
 * breaks a projection and never hides an edit; nor does it split a tool group a host changed
 * part of (see `splitGroupMembers`). `wholeGroups: false` applies replaces as they are: the
 * ladder checks a stage's fresh proposal that way, so a stage that splits a group is rejected
 * and said so instead of quietly undone.
 */
export function applyLedger(
  entries: readonly Entry[],
  decisions: readonly Decision[],
  { wholeGroups = true }: { wholeGroups?: boolean } = {},
): Entry[] {
  if (decisions.length === 0) return entries as Entry[];
  const { actions, replaces } = wholeGroups ? keptActions(decisions) : actionsOf(decisions);
  const shown = replaces && wholeGroups ? splitGroupMembers(entries, actions) : undefined;
  const out: Entry[] = [];
  const emitted = new Set<ReplaceDecision>();
  const emit = (entry: Entry, depth: number): void => {
    const action = actions.get(entry.key);
    if (!action || depth > 64 || shown?.has(entry)) {
      out.push(entry);
      return;
    }
    if (action.hash !== undefined && action.hash !== contentHashOf(entry)) {
      out.push(editedEntry(entry, action.decision));
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

/**
 * Binds kept decisions to the content of the host entries they act on, so a later edit under
 * the same key (or another entry reusing it) is shown instead of the stale fold or summary.
 * Synthetic entries a decision absorbs (an older summary) are Baton's own and need no binding.
 */
export function bindToContent(decisions: readonly Decision[], history: readonly Entry[]): void {
  // The entries of the keys these decisions name (the first under each key), found in one pass
  // that stops once it has them all: a map of every key of the history, at every compaction,
  // grew with the run.
  const byKey = new Map<string, Entry | undefined>();
  for (const decision of decisions)
    for (const key of decision.kind === 'fold' ? [decision.key] : decision.keys) byKey.set(key, undefined);
  let missing = byKey.size;
  for (let i = 0; i < history.length && missing > 0; i++) {
    const entry = history[i]!;
    if (byKey.has(entry.key) && byKey.get(entry.key) === undefined) {
      byKey.set(entry.key, entry);
      missing--;
    }
  }
  // A key made from the content (`seq-<hash>`, `c-<hash>`: hosts without ids) already changes
  // with it: no hash to record, and none to check on every later call (a cold process would
  // otherwise hash every evicted message once more).
  const hashOf = (key: string) => {
    const entry = byKey.get(key);
    if (!entry) return undefined;
    const hash = contentHashOf(entry);
    return key.includes(hash) ? undefined : hash;
  };
  for (const decision of decisions) {
    if (decision.kind === 'fold') {
      const hash = hashOf(decision.key);
      if (hash) decision.hash = hash;
      continue;
    }
    const hashes: Record<string, string> = {};
    for (const key of decision.keys) {
      const hash = hashOf(key);
      if (hash) hashes[key] = hash;
    }
    if (Object.keys(hashes).length > 0) decision.hashes = hashes;
  }
}

/**
 * The ledger with the content no projection can show again left out: a fold of a key, or a
 * replacement entry, that a later decision acts on (later decisions win per key) keeps its key
 * and loses its text. A summary that absorbed the previous one then holds the only copy of the
 * older text instead of every generation of it, so a session's ledger (rewritten in the store
 * at every compaction) grows with the keys it evicted, not with every summary it wrote.
 * `applyLedger` gives the same projection from the result; spans and the decision count stay.
 *
 * @example
 * const next = { decisions: withoutSuperseded([...ledger.decisions, ...fresh]) };
 */
export function withoutSuperseded(decisions: readonly Decision[]): Decision[] {
  const lastFor = new Map<string, number>();
  decisions.forEach((decision, i) => {
    if (decision.kind === 'fold') lastFor.set(decision.key, i);
    else for (const key of decision.keys) lastFor.set(key, i);
  });
  const overridden = (key: string, i: number) => (lastFor.get(key) ?? i) > i;
  // A fold keeps the rest of the entry it folds (meta, seq): only a replace makes it a bare hop.
  const absorbed = (key: string, i: number) =>
    overridden(key, i) && decisions[lastFor.get(key) as number]?.kind === 'replace';
  return decisions.map((decision, i) => {
    if (decision.kind === 'fold')
      return overridden(decision.key, i) && decision.parts.length > 0 ? { ...decision, parts: [] } : decision;
    // An absorbed replacement is only ever a hop to the decision that absorbed it: its key suffices.
    if (!decision.entries.some((entry) => absorbed(entry.key, i) && entry.parts.length > 0)) return decision;
    return {
      ...decision,
      entries: decision.entries.map((entry) =>
        absorbed(entry.key, i) ? { key: entry.key, seq: entry.seq, role: entry.role, parts: [] } : entry,
      ),
    };
  });
}

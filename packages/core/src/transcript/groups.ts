import { holdsProviderCompaction } from './provider-context.ts';
import { type Entry, isSynthetic, toolCalls, toolResults } from './transcript.ts';

export type GroupKind = 'system' | 'user' | 'tool-exchange' | 'assistant' | 'synthetic';

/** The atomic unit the ladder moves: stages keep or evict whole groups, so tool pairing survives. */
export interface Group {
  kind: GroupKind;
  /** Index of the first entry in the projection, and one past the last. */
  start: number;
  end: number;
  entries: Entry[];
  /** Names of the tools called in this group. */
  toolNames: string[];
  /** The model has answered after this group (its tool results were seen). */
  consumed: boolean;
  /** Holds a pinned tool's call/result, a provider's compaction block, or an entry the `pin` predicate selected. */
  pinned: boolean;
  /** The first host user message: the opening request, kept verbatim. */
  firstRequest: boolean;
  /** The latest host user message: the current turn. */
  latestRequest: boolean;
  /** The last group of the projection: the step in progress. */
  newest: boolean;
}

export interface PinPolicy {
  pinnedTools: ReadonlySet<string>;
  pin?: ((entry: Entry) => boolean) | undefined;
  /**
   * Over a host window (`PrepareInput.window`): the seq of the conversation's opening request,
   * the only user message kept as one (once the window slid past it, none is). Undefined: the
   * first user message of the entries is the opening request.
   */
  openingSeq?: number | undefined;
}

/**
 * The policy of a call over a host window (Mastra's `lastMessages`), which slides past the
 * opening request in time: the opening request is the first user message the session saw
 * (its seq, recorded in `state` once), kept verbatim while the window holds it. Each window's
 * own first user message is history like any other turn: protecting it split the span a
 * summary may take, and every slide left one more summary behind it.
 */
export function windowPolicy(
  policy: PinPolicy,
  state: { openingSeq?: number },
  entries: readonly Entry[],
): { policy: PinPolicy; stateChanged: boolean } {
  let stateChanged = false;
  if (state.openingSeq === undefined) {
    const opening = entries.find((entry) => entry.role === 'user' && entry.meta?.synthetic === undefined);
    if (opening) {
      state.openingSeq = opening.seq;
      stateChanged = true;
    }
  }
  return { policy: { ...policy, openingSeq: state.openingSeq }, stateChanged };
}

function isPinned(entry: Entry, policy: PinPolicy): boolean {
  // The provider's own compaction of what came before: the model's only record of it.
  if (holdsProviderCompaction(entry)) return true;
  if (policy.pinnedTools.size > 0) {
    for (const part of entry.parts) {
      if ((part.type === 'tool-call' || part.type === 'tool-result') && policy.pinnedTools.has(part.name))
        return true;
    }
  }
  if (!policy.pin) return false;
  try {
    return policy.pin(entry) === true;
  } catch {
    // A throwing predicate must not lose data: treat the entry as pinned.
    return true;
  }
}

/** Splits a (repaired) projection into groups and marks what protects each one. */
export function buildGroups(entries: readonly Entry[], policy: PinPolicy): Group[] {
  const groups: Group[] = [];
  let i = 0;
  while (i < entries.length) {
    const entry = entries[i]!;
    const start = i;
    let kind: GroupKind;
    i++;
    if (isSynthetic(entry)) kind = 'synthetic';
    else if (entry.role === 'system') kind = 'system';
    else if (entry.role === 'user') kind = 'user';
    else if (entry.role === 'assistant' && toolCalls(entry).length > 0) {
      kind = 'tool-exchange';
      while (i < entries.length && entries[i]!.role === 'tool') i++;
    } else if (entry.role === 'tool') {
      kind = 'tool-exchange';
      while (i < entries.length && entries[i]!.role === 'tool') i++;
    } else kind = 'assistant';
    const members = entries.slice(start, i);
    const toolNames: string[] = [];
    let pinned = false;
    for (const member of members) {
      for (const call of toolCalls(member)) toolNames.push(call.name);
      if (!pinned && isPinned(member, policy)) pinned = true;
    }
    groups.push({
      kind,
      start,
      end: i,
      entries: members,
      toolNames,
      consumed: false,
      pinned,
      firstRequest: false,
      latestRequest: false,
      newest: false,
    });
  }
  let assistantLater = false;
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g]!;
    group.consumed = assistantLater;
    if (group.entries.some((e) => e.role === 'assistant' && !isSynthetic(e))) assistantLater = true;
  }
  const firstUser = groups.find((g) => g.kind === 'user');
  if (firstUser && (policy.openingSeq === undefined || firstUser.entries[0]!.seq === policy.openingSeq))
    firstUser.firstRequest = true;
  const latestUser = groups.findLast((g) => g.kind === 'user');
  if (latestUser) latestUser.latestRequest = true;
  const last = groups.at(-1);
  if (last) last.newest = true;
  return groups;
}

/** Groups no stage of the ladder may touch (degrade aside). */
export function isProtected(group: Group): boolean {
  return group.kind === 'system' || group.firstRequest || group.latestRequest || group.pinned || group.newest;
}

/** True when the group holds tool results the model has not seen yet. */
export function hasUnconsumedResults(group: Group): boolean {
  return !group.consumed && group.entries.some((e) => toolResults(e).length > 0);
}

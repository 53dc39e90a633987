import { type Group, hasUnconsumedResults, isProtected } from './groups.ts';
import { type Entry, toolCalls, toolResults } from './transcript.ts';

/**
 * Why a projection breaks tool pairing, or undefined when it holds: every result answers a
 * call of the assistant message right before its tool run, and every call is answered
 * unless it belongs to the trailing, still-running step.
 */
export function pairingViolation(entries: readonly Entry[]): string | undefined {
  let open = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.role === 'tool') {
      for (const result of toolResults(entry)) {
        if (!open.delete(result.callId))
          return `tool result ${result.callId} at seq ${entry.seq} has no call before it`;
      }
      continue;
    }
    if (open.size > 0)
      return `tool call ${[...open.keys()][0]} at seq ${open.values().next().value} has no result`;
    open = new Map(toolCalls(entry).map((c) => [c.id, entry.seq]));
  }
  return undefined;
}

/**
 * Guards the contract against any stage, built-in or custom: pairing holds, and every entry
 * of a protected group (system, first and latest request, pinned, newest step) and every
 * unconsumed tool result is still there, as the same object.
 */
export function stageViolation(
  before: readonly Group[],
  after: readonly Entry[],
  { degrades = false }: { degrades?: boolean } = {},
): string | undefined {
  const pairing = pairingViolation(after);
  if (pairing) return pairing;
  const present = new Set(after);
  const keys = degrades ? new Set(after.map((e) => e.key)) : undefined;
  for (const group of before) {
    if (!isProtected(group) && !hasUnconsumedResults(group)) continue;
    for (const entry of group.entries) {
      if (present.has(entry)) continue;
      // A degrading stage may swap a tool result, or the text of a protected request, for a
      // preview under the same key (pinned and system content aside).
      if (keys && !group.pinned && keys.has(entry.key)) {
        if (entry.role === 'tool') continue;
        if (entry.role === 'user' && (group.firstRequest || group.latestRequest)) continue;
      }
      return `protected entry at seq ${entry.seq} (${group.kind}) was changed or removed`;
    }
  }
  return undefined;
}

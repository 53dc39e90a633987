import type { Group } from '../../transcript/groups.ts';
import { type Entry, inputText, outputText, toolCalls, toolResults } from '../../transcript/transcript.ts';

/**
 * Tool results a later step made stale, in the groups' order: the same call made again (a file
 * read again, a command re-run, a listing refreshed: same tool, same arguments), an output a
 * later result repeats verbatim, and a failed call that a later successful call of the same
 * tool on the same target resolved (an edit of the same path, not any later `bash`). The agent works from the newer result, so folding the stale one first keeps
 * an older result that nothing replaced in sight longer than plain oldest-first would.
 * One pass from the newest group back; only host results count (placeholders are Baton's).
 */
export function supersededResults(groups: readonly Group[]): Set<Entry> {
  const laterCalls = new Set<string>();
  const laterOutputs = new Set<string>();
  /** Tool and target (each top-level string argument) of later successful calls. */
  const laterSuccesses = new Set<string>();
  const targets = (name: string, input: unknown): string[] =>
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? Object.entries(input).flatMap(([key, value]) =>
          typeof value === 'string' ? [`${name}\u0000${key}\u0000${value}`] : [],
        )
      : [];
  const stale = new Set<Entry>();
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g] as Group;
    if (group.kind !== 'tool-exchange') continue;
    const signatures = new Map<string, string>();
    const callTargets = new Map<string, string[]>();
    for (const entry of group.entries)
      for (const call of toolCalls(entry)) {
        signatures.set(call.id, `${call.name}\u0000${inputText(call.input)}`);
        callTargets.set(call.id, targets(call.name, call.input));
      }
    // Results of this group are compared with later groups only, then join them.
    const seen: Array<() => void> = [];
    for (const entry of group.entries) {
      if (entry.role !== 'tool' || entry.meta?.synthetic !== undefined) continue;
      for (const result of toolResults(entry)) {
        const signature = signatures.get(result.callId);
        const output = outputText(result.output);
        if (
          (signature !== undefined && laterCalls.has(signature)) ||
          laterOutputs.has(output) ||
          (result.isError === true &&
            (callTargets.get(result.callId) ?? []).some((t) => laterSuccesses.has(t)))
        )
          stale.add(entry);
        seen.push(() => {
          if (signature !== undefined) laterCalls.add(signature);
          laterOutputs.add(output);
          if (result.isError !== true)
            for (const t of callTargets.get(result.callId) ?? []) laterSuccesses.add(t);
        });
      }
    }
    for (const add of seen) add();
  }
  return stale;
}

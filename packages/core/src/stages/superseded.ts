import type { Group } from '../groups.ts';
import { type Entry, inputText, outputText, toolCalls, toolResults } from '../transcript.ts';

/**
 * Tool results a later step made stale, in the groups' order: the same call made again (a file
 * read again, a command re-run, a listing refreshed: same tool, same arguments), an output a
 * later result repeats verbatim, and a failed call of a tool that later succeeded (the attempt
 * was resolved). The agent works from the newer result, so folding the stale one first keeps
 * an older result that nothing replaced in sight longer than plain oldest-first would.
 * One pass from the newest group back; only host results count (placeholders are Baton's).
 */
export function supersededResults(groups: readonly Group[]): Set<Entry> {
  const laterCalls = new Set<string>();
  const laterOutputs = new Set<string>();
  const laterSuccesses = new Set<string>();
  const stale = new Set<Entry>();
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g] as Group;
    if (group.kind !== 'tool-exchange') continue;
    const signatures = new Map<string, string>();
    for (const entry of group.entries)
      for (const call of toolCalls(entry))
        signatures.set(call.id, `${call.name}\u0000${inputText(call.input)}`);
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
          (result.isError === true && laterSuccesses.has(result.name))
        )
          stale.add(entry);
        seen.push(() => {
          if (signature !== undefined) laterCalls.add(signature);
          laterOutputs.add(output);
          if (result.isError !== true) laterSuccesses.add(result.name);
        });
      }
    }
    for (const add of seen) add();
  }
  return stale;
}

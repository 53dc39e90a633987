import { formatTokens as fmt } from './format.ts';
import { buildGroups, type PinPolicy } from './groups.ts';
import type { Notice } from './prepared.ts';
import type { Entry } from './transcript.ts';

/** What keeps a compacted prompt above its target, largest first, in calibrated tokens. */
export type FloorHolders = Array<{ what: string; tokens: number }>;

/**
 * Splits the prompt the ladder left into what holds it up: the part outside the conversation
 * (system prompt, tools, notes), the opening request, pinned results, the turn in progress
 * (latest request onward), and what else the stages kept (summaries, placeholders, recent
 * turns). Shares the ladder's own grouping, so "pinned" means what the ladder protected.
 */
export function floorHolders(
  entries: readonly Entry[],
  overhead: number,
  count: (entry: Entry) => number,
  pinPolicy: PinPolicy,
): FloorHolders {
  const sums = new Map<string, number>([['system prompt, tools and notes', overhead]]);
  const add = (what: string, tokens: number) => sums.set(what, (sums.get(what) ?? 0) + tokens);
  let inCurrentTurn = false;
  for (const group of buildGroups(entries, pinPolicy)) {
    if (group.latestRequest) inCurrentTurn = true;
    const tokens = group.entries.reduce((sum, entry) => sum + count(entry), 0);
    if (group.kind === 'system') add('system prompt, tools and notes', tokens);
    else if (group.firstRequest) add('the opening request', tokens);
    else if (inCurrentTurn) add('the current turn', tokens);
    else if (group.pinned) add('pinned tool results', tokens);
    else add('recent turns, summaries and placeholders', tokens);
  }
  return [...sums]
    .filter(([, tokens]) => tokens > 0)
    .map(([what, tokens]) => ({ what, tokens }))
    .sort((a, b) => b.tokens - a.tokens);
}

/**
 * Told once per floor episode: compaction could not reach its target, what holds the prompt
 * up, and when Baton compacts again (instead of compacting, and breaking the prompt cache,
 * on every call for a few hundred tokens).
 */
export function floorNotice(
  tokens: number,
  target: number,
  holders: FloorHolders,
  next: { grownBy: number; truncateAt: number },
): Notice {
  const held = holders.map((h) => `${h.what} ${fmt(h.tokens)}`).join('; ');
  return {
    type: 'floor',
    text:
      `[baton] Compaction cannot bring your context below about ${fmt(tokens)} tokens (it aims at ${fmt(Math.round(target))}); what holds it: ${held}. ` +
      `Baton compacts again once the context has grown by ${fmt(Math.round(next.grownBy))} tokens, or at ${fmt(Math.round(next.truncateAt))} tokens, where older turns are dropped (archived for recall). ` +
      'Keep tool outputs small (ask for ranges, filter), and keep what you need in your notes.',
    facts: {
      kind: 'floor',
      tokens,
      target: Math.round(target),
      compactsAgainAt: Math.round(tokens + next.grownBy),
      truncateAt: Math.round(next.truncateAt),
    },
  };
}

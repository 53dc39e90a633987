import type { ResolvedOptions } from '../budget/options.ts';
import type { Notice } from '../contracts/prepared.ts';
import type { SessionState } from '../contracts/session-state.ts';
import { buildGroups, type PinPolicy } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';
import { formatTokens as fmt } from '../util/format.ts';
import { minGain } from './controller.ts';

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

/** Key of the latest host user message: what a floor is valid for. */
export function latestRequestKey(entries: readonly Entry[]): string | undefined {
  return entries.findLast((entry) => entry.role === 'user' && entry.meta?.synthetic === undefined)?.key;
}

/** The floor found earlier in this turn; a new user message makes the last turn evictable, so none. */
export function floorOfTurn(state: SessionState, turn: string | undefined): number | undefined {
  return state.floor?.turn === turn ? state.floor?.tokens : undefined;
}

/**
 * The notice of a floor a backstop compaction found (the lowest prompt its ladder reached,
 * above target), with what holds it; undefined when there is none or the agent was told.
 */
export function floorToTell(
  state: SessionState,
  result: { entries: Entry[]; tokens: number },
  floor: { target: number; overhead: number; pinPolicy: PinPolicy },
  options: ResolvedOptions,
  count: (entry: Entry) => number,
): (Notice & { holders: FloorHolders }) | undefined {
  const { target, overhead, pinPolicy } = floor;
  if (result.tokens <= target || state.floor?.told) return undefined;
  const holders = floorHolders(result.entries, overhead, count, pinPolicy);
  const notice = floorNotice(result.tokens, target, holders, {
    grownBy: minGain(options),
    truncateAt: options.truncateAt * options.inputBudget,
  });
  return { ...notice, holders };
}

/**
 * Keeps the floor so the next calls of this turn do not run the ladder again for nothing
 * (told once per episode); a compaction that reached its target ends the episode.
 * Returns whether the state changed.
 */
export function recordFloor(
  state: SessionState,
  tokens: number,
  target: number,
  turn: string | undefined,
): boolean {
  if (tokens <= target) {
    if (!state.floor) return false;
    delete state.floor;
    return true;
  }
  state.floor = { tokens, told: true, ...(turn === undefined ? {} : { turn }) };
  return true;
}

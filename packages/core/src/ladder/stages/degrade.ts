import { builtInStage, FreedTokens, type Stage } from '../../contracts/stage.ts';
import type { FoldDecision } from '../../ledger/ledger.ts';
import { identifierIndex } from '../../transcript/identifiers.ts';
import { type Entry, outputText, type Part } from '../../transcript/transcript.ts';
import { resultRef } from './spans.ts';

/** Characters of the smallest preview: 4% of the input budget at about 3 characters a token, at least 768. */
export function previewChars(budget: number): number {
  return Math.max(768, Math.floor(budget * 0.04 * 3));
}

/**
 * The most a single preview may take, in tokens: a quarter of the budget. A previewed opening
 * request stays in every later prompt, so it must leave the conversation room to work.
 */
const MAX_PREVIEW_SHARE = 0.25;

/** Share of a preview given to the names in the part not shown (paths, symbols, codes). */
const NAMES_SHARE = 0.1;

function preview(text: string, chars: number, ref: string, what = 'result'): string {
  // The names in the hidden middle stay in sight, so the agent knows what to recall for.
  const namesChars = Math.floor(chars * NAMES_SHARE);
  const shown = chars - namesChars;
  const head = Math.floor(shown * 0.7);
  const tail = shown - head;
  const names = identifierIndex(text.slice(head, text.length - tail), '', namesChars);
  return [
    `[baton] This ${what} was too large for the context window (${text.length} chars); showing the first ${head} and last ${tail}. ` +
      `Read the rest with recall({ "ref": ${JSON.stringify(ref)}, "offset": ${head}, "limit": 8000 }).`,
    text.slice(0, head),
    `[… ${text.length - shown} chars not shown${names ? `; names in them: ${names}` : ''} …]`,
    text.slice(text.length - tail),
  ].join('\n');
}

/**
 * Stage 5, the residual path: only when the request is still over the budget itself, it
 * replaces the largest tool results the model has not seen yet (or of the newest step) with
 * head/tail previews and a recall ref; if that is not enough, the largest texts of the
 * protected requests (the opening one, the latest one), so one big message never locks a
 * conversation. The one stage allowed to touch unconsumed results and protected requests;
 * the session says so in a `degrade` notice, and the archive keeps the full text. Pinned
 * content is never degraded.
 */
export function degrade(): Stage {
  const stage = builtInStage('degrade', async function degradeStage(ctx) {
    if (ctx.tokens <= ctx.budget) return { decisions: [] };
    const chars = previewChars(ctx.budget);
    const candidates: Entry[] = [];
    for (const group of ctx.groups) {
      if (group.pinned || (group.consumed && !group.newest)) continue;
      for (const entry of group.entries) {
        if (entry.role === 'tool' && entry.meta?.synthetic === undefined) candidates.push(entry);
      }
    }
    const requests = ctx.groups
      .filter((group) => (group.firstRequest || group.latestRequest) && !group.pinned)
      .flatMap((group) =>
        group.entries.filter((entry) => entry.role === 'user' && entry.meta?.synthetic === undefined),
      );
    const largestFirst = (entries: Entry[]) => entries.sort((a, b) => ctx.count(b) - ctx.count(a));
    const previewed = (entry: Entry, part: Part, size: number): Part | undefined => {
      if (part.type === 'tool-result') {
        const text = outputText(part.output);
        if (text.length <= size * 1.5) return undefined;
        return { ...part, output: preview(text, size, resultRef(entry, part.callId)) };
      }
      if (part.type === 'text' && entry.role === 'user' && part.text.length > size * 1.5)
        return { ...part, text: preview(part.text, size, entry.key, 'message') };
      return undefined;
    };
    const freed = new FreedTokens({ ...ctx, target: ctx.budget });
    // A preview shows as much as the room allows: what is left below the ladder's target once
    // this entry is gone, up to a quarter of the budget, never less than the smallest preview.
    // A pasted document slightly over the budget is then mostly readable, not 2% of it.
    const previewCharsOf = (entry: Entry): number => {
      const tokens = ctx.count(entry);
      const textLength = entry.parts.reduce(
        (sum, part) =>
          sum +
          (part.type === 'text'
            ? part.text.length
            : part.type === 'tool-result'
              ? outputText(part.output).length
              : 0),
        0,
      );
      const room = Math.min(
        Math.floor(ctx.budget * MAX_PREVIEW_SHARE),
        ctx.target - (freed.remaining - tokens),
      );
      return Math.max(chars, Math.floor(room * (textLength / Math.max(1, tokens)) * 0.9));
    };
    const decisions: FoldDecision[] = [];
    // Tool results first; the requests' text only if they are not enough.
    for (const entry of [...largestFirst(candidates), ...largestFirst(requests)]) {
      if (freed.remaining <= ctx.budget) break;
      const size = previewCharsOf(entry);
      let changed = false;
      const parts = entry.parts.map((part): Part => {
        const replaced = previewed(entry, part, size);
        if (!replaced) return part;
        changed = true;
        return replaced;
      });
      if (!changed) continue;
      const saving = ctx.count(entry) - ctx.count({ ...entry, parts });
      if (saving <= 0) continue;
      decisions.push({ kind: 'fold', stage: 'degrade', key: entry.key, parts });
      freed.add(saving);
    }
    return { decisions };
  });
  return Object.assign(stage, { degrades: true as const });
}

import { builtInStage, FreedTokens, type Stage } from '../../contracts/stage.ts';
import type { FoldDecision } from '../../ledger/ledger.ts';
import { outputMedia, splitOutputMedia } from '../../tokens/tool-output-media.ts';
import { foldedResultText } from '../../transcript/folded-result.ts';
import { type Entry, outputText, type Part } from '../../transcript/transcript.ts';
import { recallRefHint, resultRef } from './spans.ts';
import { supersededResults } from './superseded.ts';

export interface FoldToolResultsOptions {
  /** Newest tool results left verbatim. Default: the `keep` option (3). */
  keep?: number;
}

/** The stage's name in events, the ledger and notices. */
export const FOLD_STAGE = 'fold-tool-results';

/** Results this short are cheaper than their placeholder. */
const MIN_FOLD_CHARS = 400;
const NOTICE_LINE_TOKENS = 40;

/** What the model read of an output: its text, images and files marked by type (their base64 is not text to it). */
const readableText = (output: unknown) =>
  typeof output === 'object' && output !== null ? splitOutputMedia(output).text : outputText(output);

/**
 * Stage 1: replaces consumed tool results older than the newest `keep` with a one-line
 * placeholder naming the size, the first line and the recall ref. Calls stay, so pairing holds.
 * Results a later step made stale (see `supersededResults`) fold first, then the rest oldest
 * first; the stage stops at the target, so the order decides what stays verbatim.
 */
export function foldToolResults({ keep }: FoldToolResultsOptions = {}): Stage {
  return builtInStage(FOLD_STAGE, async function foldToolResultsStage(ctx) {
    const keepNewest = keep ?? ctx.options.keep;
    const freed = new FreedTokens(ctx);
    const candidates: Entry[] = [];
    const resultEntries: Entry[] = [];
    for (const group of ctx.groups) {
      if (group.kind !== 'tool-exchange') continue;
      for (const entry of group.entries) {
        if (entry.role !== 'tool') continue;
        resultEntries.push(entry);
        if (group.consumed && !group.pinned && !group.newest && entry.meta?.synthetic === undefined)
          candidates.push(entry);
      }
    }
    const kept = new Set(resultEntries.slice(Math.max(0, resultEntries.length - keepNewest)));
    // Stale results (a file read again, a command re-run, an attempt that later succeeded) go
    // first, then the rest oldest first.
    const stale = supersededResults(ctx.groups);
    const ordered = [
      ...candidates.filter((entry) => stale.has(entry)),
      ...candidates.filter((entry) => !stale.has(entry)),
    ];
    const decisions: FoldDecision[] = [];
    for (const entry of ordered) {
      if (freed.reachedTarget) break;
      if (kept.has(entry)) continue;
      // Images a reader kept beside the result (opaque parts in the tool entry) fold with it.
      const mediaParts = entry.parts.filter((part) => part.type === 'opaque' && outputMedia(part.value));
      let changed = false;
      const parts = entry.parts.flatMap((part): Part[] => {
        if (mediaParts.includes(part)) return [];
        if (part.type !== 'tool-result') return [part];
        const inOutput =
          typeof part.output === 'object' && part.output !== null
            ? splitOutputMedia(part.output).media.length
            : 0;
        const media = inOutput + mediaParts.length;
        if (media === 0 && outputText(part.output).length < MIN_FOLD_CHARS) return [part];
        changed = true;
        return [
          {
            ...part,
            output: foldedResultText({
              name: part.name,
              text: readableText(part.output),
              isError: part.isError === true,
              media,
              recallHint: recallRefHint(resultRef(entry, part.callId)),
            }),
          },
        ];
      });
      if (!changed) continue;
      // Each fold also costs a line in the eviction notice the agent reads next.
      const saving = ctx.count(entry) - ctx.count({ ...entry, parts }) - NOTICE_LINE_TOKENS;
      if (saving <= 0) continue;
      decisions.push({ kind: 'fold', stage: FOLD_STAGE, key: entry.key, parts });
      freed.add(saving);
    }
    return { decisions };
  });
}

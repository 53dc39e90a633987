import { builtInStage, FreedTokens, type Stage } from '../../contracts/stage.ts';
import { type Group, hasUnconsumedResults, isProtected } from '../../transcript/groups.ts';
import { identifierIndex } from '../../transcript/identifiers.ts';
import { messagesHeld } from '../../transcript/seq-ranges.ts';
import { type Entry, entryText } from '../../transcript/transcript.ts';
import { adjacentRuns, recallRangeHint, replaceWith } from './spans.ts';

const MARKER_NAMES = 'names in them: ';

/**
 * The names a truncation marker lists: all the prompt still shows of what it dropped, so a
 * summary that later takes the marker carries them on. '' for any other entry.
 */
export function markerNames(entry: Entry): string {
  if (entry.meta?.synthetic !== 'marker') return '';
  const text = entryText(entry);
  const at = text.indexOf(MARKER_NAMES);
  if (at < 0) return '';
  const end = text.indexOf('; recall(', at);
  return text.slice(at + MARKER_NAMES.length, end < 0 ? undefined : end);
}

const isDigest = (group: Group) =>
  group.kind === 'synthetic' && group.entries.every((e) => e.meta?.synthetic === 'digest');

/**
 * Stage 4, the destructive one: only above `truncateAt` (or the budget itself) it drops the
 * oldest unprotected groups, leaving a one-line marker per removed run with its recall call.
 */
export function truncateOldest(): Stage {
  return builtInStage(
    'truncate-oldest',
    async function truncateOldestStage(ctx) {
      if (ctx.tokens <= ctx.truncateLimit && ctx.tokens <= ctx.budget) return { decisions: [] };
      const freed = new FreedTokens(ctx);
      const selected: Group[] = [];
      const take = (group: Group) => {
        selected.push(group);
        // The marker costs about 40 tokens per run; the estimate stays conservative by ignoring it.
        freed.add(group.entries.reduce((sum, e) => sum + ctx.count(e), 0));
      };
      for (const group of ctx.groups) {
        if (freed.reachedTarget) break;
        if (isProtected(group) || hasUnconsumedResults(group) || group.kind === 'synthetic') continue;
        take(group);
      }
      // Digests of dropped tool traffic grow with every call and no other stage shrinks them: when
      // what is left would still not fit the budget, the oldest go too (their names carry into the
      // marker) rather than the opening request being cut to a preview. Unless the protected
      // content alone is above the target: then the opening request has no working margin, and a
      // preview of it (by `degrade`) is what leaves the agent room to work.
      const protectedTokens = ctx.groups
        .filter((group) => isProtected(group))
        .reduce((sum, group) => sum + group.entries.reduce((s, e) => s + ctx.count(e), 0), 0);
      for (const group of ctx.groups) {
        if (freed.remaining <= ctx.budget || protectedTokens > ctx.target) break;
        if (!isProtected(group) && isDigest(group) && !selected.includes(group)) take(group);
      }
      // Markers left by earlier truncations next to what goes now merge into one.
      const chosen = new Set(selected);
      ctx.groups.forEach((group, i) => {
        const isMarker =
          group.kind === 'synthetic' && group.entries.every((e) => e.meta?.synthetic === 'marker');
        if (isMarker && (chosen.has(ctx.groups[i - 1]!) || chosen.has(ctx.groups[i + 1]!)))
          selected.push(group);
      });
      const decisions = adjacentRuns(selected, ctx.groups).map((run) =>
        replaceWith('truncate-oldest', run, 'marker', 'user', ([from, to], entries) => {
          // The names in what goes stay in sight, so a need to recall it shows.
          const names = identifierIndex(entries.map(entryText).join('\n'), '', 240);
          return `[baton] ${messagesHeld(entries)} earlier messages (seq ${from}-${to}) were removed to fit the context window;${names ? ` ${MARKER_NAMES}${names};` : ''} ${recallRangeHint(from, to)} returns them verbatim.`;
        }),
      );
      return { decisions };
    },
    { destructive: true },
  );
}

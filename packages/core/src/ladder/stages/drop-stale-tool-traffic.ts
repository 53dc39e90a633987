import { builtInStage, FreedTokens, type Stage } from '../../contracts/stage.ts';
import { digestLines } from '../../transcript/digest.ts';
import type { Group } from '../../transcript/groups.ts';
import { adjacentRuns, recallRangeHint, replaceWith } from './spans.ts';

export interface DropStaleToolTrafficOptions {
  /** Newest tool exchanges left untouched. Default: the `keep` option (3). */
  keep?: number;
}

const PER_MESSAGE_COST = 4;

/**
 * Stage 2: replaces old, consumed tool call/result groups with a one-line-per-call digest
 * (adjacent groups share one digest message). Whole groups go, so pairing holds.
 */
export function dropStaleToolTraffic({ keep }: DropStaleToolTrafficOptions = {}): Stage {
  return builtInStage('drop-stale-tool-traffic', async function dropStaleToolTrafficStage(ctx) {
    const keepNewest = keep ?? ctx.options.keep;
    const exchanges = ctx.groups.filter((g) => g.kind === 'tool-exchange');
    const recent = new Set(exchanges.slice(Math.max(0, exchanges.length - keepNewest)));
    const freed = new FreedTokens(ctx);
    const selected: Group[] = [];
    for (const group of exchanges) {
      if (freed.reachedTarget) break;
      if (!group.consumed || group.pinned || group.newest || recent.has(group)) continue;
      const before = group.entries.reduce((sum, e) => sum + ctx.count(e), 0);
      // Adjacent groups share one digest message, so a group costs only its own lines.
      const lines = digestLines(group.entries).join('\n');
      const after =
        ctx.count({ key: '', seq: 0, role: 'user', parts: [{ type: 'text', text: lines }] }) -
        PER_MESSAGE_COST;
      // Selected even without a saving of its own, so the runs around it merge into one digest.
      selected.push(group);
      if (before > after) freed.add(before - after);
    }
    const decisions = adjacentRuns(selected, ctx.groups).map((run) =>
      replaceWith('drop-stale-tool-traffic', run, 'digest', 'user', ([from, to], entries) =>
        [
          `[baton] Earlier tool calls (seq ${from}-${to}) condensed to one line each; ${recallRangeHint(from, to)} returns them verbatim.`,
          ...digestLines(entries),
        ].join('\n'),
      ),
    );
    return { decisions };
  });
}

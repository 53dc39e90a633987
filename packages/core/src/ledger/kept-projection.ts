import type { Entry } from '../transcript/transcript.ts';
import { SeenPrefix } from '../util/seen-prefix.ts';
import { applyLedger, type Decision, keptActions } from './ledger.ts';

/**
 * A session's last projection: the history it came from, the ledger applied, and the result.
 * Between two compactions the ledger stays the same array and the host sends the same history
 * plus new messages, which no decision names; their projection is the last one plus them, so
 * a call passes over its new messages only instead of re-applying the ledger to the whole
 * history (the largest whole-history pass of a long run: 5.6 s of a 34 s, 8,000-message
 * replay).
 */
export class KeptProjection {
  private readonly seen = new SeenPrefix();
  private decisions: readonly Decision[] | undefined;
  private projection: Entry[] = [];

  /**
   * `applyLedger(entries, decisions)`, the same entries in the same order, in an array of its
   * own (never `entries`), taking the last call's result when `entries` extends its history
   * with entries no decision acts on.
   *
   * @example
   * const kept = new KeptProjection();
   * const projection = kept.apply(entries, record.ledger.decisions);
   */
  apply(entries: readonly Entry[], decisions: readonly Decision[]): Entry[] {
    const known = this.seen.known(entries);
    if (known > 0 && decisions === this.decisions && this.extends(entries, known, decisions)) {
      for (let i = known; i < entries.length; i++) this.projection.push(entries[i]!);
      this.seen.see(entries, known);
      return this.projection.slice();
    }
    const projection = applyLedger(entries, decisions);
    this.seen.see(entries, 0);
    this.decisions = decisions;
    this.projection = projection.slice();
    // An empty ledger gives the history itself: never hand the host its own array back.
    return projection === entries ? projection.slice() : projection;
  }

  /** Whether the entries after the first `known` leave the projection of those as it was, and are shown as they are. */
  private extends(entries: readonly Entry[], known: number, decisions: readonly Decision[]): boolean {
    if (known === entries.length || decisions.length === 0) return true;
    // A result joining the tool group the history ended with can make a replace of that group
    // show it whole (a group is never split: see splitGroupMembers): the full pass decides.
    if (entries[known]!.role === 'tool') return false;
    const { actions } = keptActions(decisions);
    for (let i = known; i < entries.length; i++) if (actions.has(entries[i]!.key)) return false;
    return true;
  }
}

import { LruCache, type UnfitInfo } from '@baton/core/internals';

/** What an `unfit` run reports: `processor.unfitOf(result)`, or the tripwire's metadata. */
export interface BatonUnfitOutcome {
  outcome: 'unfit';
  reason: string;
  checkpointRef: string;
  /** The Baton session of the run (`processor.session(sessionId).readCheckpoint(checkpointRef)`). */
  sessionId: string;
}

/** Metadata of the tripwire an `unfit` run ends with under `unfitAs: 'tripwire'`. */
export type BatonTripwireMetadata = BatonUnfitOutcome;

/**
 * The unfit outcomes of recent runs, keyed by their response message ids: those come back in
 * `agent.generate()`'s result, while the run id never reaches processors. Bounded like the
 * core's sessions (`maxSessions`), so a long-lived processor does not grow.
 *
 * @example
 * const outcomes = new UnfitOutcomes(1_000);
 * outcomes.record(info, session.id, args.messageList.get.response.db());
 * outcomes.of(result); // the outcome, or undefined for a run that fitted
 */
export class UnfitOutcomes {
  private readonly byMessage: LruCache<string, BatonUnfitOutcome>;

  constructor(maxRuns: number) {
    this.byMessage = new LruCache(maxRuns);
  }

  /** Records a run's unfit outcome under each of its response messages and returns it. */
  record(info: UnfitInfo, sessionId: string, responses: readonly { id: string }[]): BatonUnfitOutcome {
    const { reason, checkpointRef } = info;
    const outcome: BatonUnfitOutcome = { outcome: 'unfit', reason, checkpointRef, sessionId };
    for (const message of responses) this.byMessage.set(message.id, outcome);
    return outcome;
  }

  /** The outcome of the run whose result this is; `undefined` for a run that did not end unfit. */
  of(result: {
    response?: { dbMessages?: readonly { id: string }[] | undefined } | undefined;
  }): BatonUnfitOutcome | undefined {
    for (const message of result.response?.dbMessages ?? []) {
      const outcome = this.byMessage.get(message.id);
      if (outcome) return outcome;
    }
    return undefined;
  }
}

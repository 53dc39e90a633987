/**
 * What Baton reports. Events carry counts, ranges and names, never message content, so they
 * are safe to log and ship to telemetry.
 */
export type BatonEvent =
  | {
      type: 'stage-completed';
      stage: string;
      /** Host entries newly evicted or rewritten by this stage. */
      entriesAffected: number;
      tokensBefore: number;
      tokensAfter: number;
      /** Seq range of what the stage touched. */
      seqRange?: [number, number];
    }
  | { type: 'stage-failed'; stage: string; error: string }
  | { type: 'stage-skipped'; stage: string; reason: string }
  | { type: 'summarizer-failed'; stage: string; error: string }
  | { type: 'transcript-repaired'; orphanResults: number; missingResults: number; refs: string[] }
  | { type: 'store-failed'; operation: string; error: string }
  /** No durable store was available (e.g. a graph compiled without one): state is kept in memory. */
  | { type: 'store-fallback'; reason: string }
  | { type: 'ledger-conflict'; expectedVersion: number; currentVersion: number }
  | { type: 'budget-exceeded'; tokens: number; budget: number; reason: string };

export type BatonEventType = BatonEvent['type'];

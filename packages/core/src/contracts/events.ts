/**
 * What a notice told the agent, as numbers: carried by the `notice-shown` event so a host can
 * log and chart warnings and evictions without parsing the text.
 */
export type NoticeFacts =
  | { kind: 'warning'; tokens: number; budget: number; tokensLeft: number }
  | {
      kind: 'eviction';
      stages: string[];
      /** The spans evicted by this compaction (one taken in by a later, wider span is left out). */
      spans: Array<{ stage: string; from: number; to: number; messages: number }>;
      tokensFreed: number;
    }
  | { kind: 'degrade'; previews: Array<{ seq: number; chars: number; shown: number }> }
  | { kind: 'unfit'; tokens: number; budget: number; checkpointRef: string }
  | { kind: 'notes'; cleared: boolean; chars: number }
  | { kind: 'floor'; tokens: number; target: number; compactsAgainAt: number; truncateAt: number };

/**
 * What Baton reports, as emitted inside the engine: every event a host receives is one of
 * these stamped with its session id (`BatonEvent`). Events carry counts, ranges and names,
 * never message content, so they are safe to log and ship to telemetry.
 */
export type BatonEventBody =
  | {
      type: 'stage-completed';
      stage: string;
      /** Host entries newly evicted or rewritten by this stage. */
      entriesAffected: number;
      /**
       * Entries Baton made (summaries, digests, markers, folded results) this stage replaced or
       * dropped, e.g. the digests a summary took in; not in `entriesAffected`, since the host
       * entries they stand for were archived already.
       */
      syntheticAffected: number;
      tokensBefore: number;
      tokensAfter: number;
      /** Seq range of the host entries counted in `entriesAffected` (absent when there are none). */
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
  | { type: 'budget-exceeded'; tokens: number; budget: number; reason: string }
  /**
   * Once per session: the output limit the request would carry (`requested`: the provider
   * package's default when the host sets none, e.g. 64,000 from `@ai-sdk/anthropic`, or any limit
   * above an explicit `reserveOutput`) cannot fit: a default that leaves the prompt less than
   * half the window. `applied`: the request's limit was lowered to `reserved` (the AI SDK
   * middleware and Mastra do); else `reason` says why the host could not, and `reserved` is what
   * Baton keeps free.
   */
  | {
      type: 'output-limit-capped';
      model?: string;
      requested: number;
      reserved: number;
      contextWindow: number;
      applied: boolean;
      reason?: string;
    }
  /**
   * The backstop's ladder freed less than `minCompactionGain` of the budget: its decisions
   * were dropped (the prompt and its cache stay as they were) and `floor` is what it reached.
   */
  | { type: 'compaction-skipped'; tokensBefore: number; floor: number; minGain: number }
  /**
   * Compaction could not reach its target; once per episode. `holders`: what the prompt that
   * remains consists of, largest first (tokens by kind, never content).
   */
  | {
      type: 'compaction-floor';
      tokens: number;
      target: number;
      holders: Array<{ what: string; tokens: number }>;
    }
  | {
      type: 'probe-decided';
      rubric: string;
      step: number;
      /** Context tokens when the probe ran. */
      tokens: number;
      /** The decision applied: the rubric's rule over the answers (CONTINUE when the probe failed). */
      decision: 'COMPRESS' | 'CONTINUE';
      /** What the model itself concluded; differs from `decision` when it misapplied the rule. */
      modelDecision?: 'COMPRESS' | 'CONTINUE';
      agreed?: boolean;
      /** One per rubric criterion; `evidence` is the model's quote, cut to `PROBE_EVIDENCE_MAX_CHARS` (200). Empty when the probe failed. */
      criteria: Array<{ id: string; answer: 'Y' | 'N'; evidence: string }>;
      costTokens: number;
      /** The probe threw, timed out, or answered unparseably or malformed: a criterion unanswered or without evidence (failure-open: CONTINUE). */
      error?: string;
    }
  | {
      type: 'self-compacted';
      step: number;
      /** Below compactAt: a probe chose the moment, not the backstop. */
      early: boolean;
      tokensBefore: number;
      tokensAfter: number;
      summaryTokens: number;
      messagesCompressed: number;
    }
  | { type: 'self-compaction-abandoned'; step: number; reason: string }
  /**
   * `selfCompact` is on, a probe was due, and nothing can answer it (no `selfCompact.judge`,
   * and the host's model is not one Baton can call). Once per session.
   */
  | { type: 'probe-unavailable'; step: number; reason: string }
  /**
   * A notice reaches the model with this call (warning, eviction, degrade, unfit, notes,
   * floor): what it told, as figures. One event per notice, in the order of the trailer.
   */
  | { type: 'notice-shown'; notice: NoticeFacts }
  /**
   * The host also turned on the provider's own compaction (Anthropic `compaction` or
   * `contextManagement` edits, OpenAI Responses `contextManagement`): two compactors on one
   * conversation. Baton keeps the provider's compaction blocks verbatim and never evicts them;
   * choose one (usually Baton's thresholds, or raise the provider's trigger above them). Once per session.
   */
  | { type: 'provider-compaction-configured'; setting: string };

/**
 * An event as `onEvent` and `Prepared.events` deliver it: the session it happened in (one
 * listener serves every chat of a server) and what happened.
 *
 * @example
 * ```ts
 * createBaton({
 *   model: 'gpt-4o',
 *   onEvent: (event) => {
 *     if (event.type === 'notice-shown' && event.notice.kind === 'warning')
 *       log.info({ chat: event.sessionId, tokensLeft: event.notice.tokensLeft }, 'context warning');
 *   },
 * });
 * ```
 */
export type BatonEvent = BatonEventBody & { sessionId: string };

export type BatonEventType = BatonEvent['type'];

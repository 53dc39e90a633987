/** Per-session flags that must survive a restart (persisted beside the ledger). */
export interface SessionState {
  /** A warning was shown in this episode; re-armed when a compaction brings the context below warnAt. */
  warned: boolean;
  /** The agent (compact tool) or an overflow asked for compaction before the next call. */
  /** `checkpoint`: what the agent saved with an instructed request, the span's text if no summary can be written. */
  pendingCompaction?: { instruction?: string; tighten?: number; checkpoint?: string };
  /** The last call ended unfit: the next call carries a notice about it. */
  unfit?: { reason: string; checkpointRef: string; tokens: number; budget: number };
  /** Provider overflows since the last successful call. */
  overflowStreak: number;
  /** Checkpoints written so far (names the next one). */
  checkpoints: number;
  /** Self-compaction probe schedule (steps, last probe, last compaction, compactions). */
  probe?: ProbeSchedule;
  /**
   * The notes block in the cached prefix (rendered at the last compaction, so every worker
   * sends the same bytes between compactions) and the hash of the notes the model knows of
   * (that block, or what its own last notes write returned).
   */
  notes?: { block: string; known: string };
  /**
   * The ladder could not bring the prompt below its target (what it cannot evict holds it up):
   * compaction waits until the prompt grew `minCompactionGain` above `tokens`. `told` once the
   * agent was told; `turn` is the key of the latest user message then (a new turn makes the
   * last one evictable, so the floor no longer holds).
   */
  floor?: { tokens: number; told: boolean; turn?: string };
  /**
   * Since this session's last compaction: the prompt it left (`tokens`) and the cached reads
   * spent since on the growth above it (input-token equivalents); absent before the first
   * compaction. `newest` is the key of the newest entry of the last call counted: a call that
   * ends with the same entry (a retry, a prepared projection prepared again) is not a step.
   * Times the next compaction by cost (controller/cache-rent.ts).
   */
  sinceCompaction?: { tokens: number; reads: number; newest?: string };
  /**
   * Over a host window (`PrepareInput.window`): the seq of the first user message this session
   * saw, the conversation's opening request, kept as one only while the window holds it.
   */
  openingSeq?: number;
  /**
   * The provider-reported / estimated token ratio this session learnt (survives a restart),
   * for calls whose model is not known (and for sessions stored before models were told apart).
   */
  calibration?: { ratio: number; observations: number };
  /** The same, per model (`PrepareInput.modelId`, else the `model` option): see calibration.ts. */
  calibrationByModel?: Record<string, { ratio: number; observations: number }>;
}

export const STATE_NAMESPACE = 'baton/state';

export function initialState(): SessionState {
  return { warned: false, overflowStreak: 0, checkpoints: 0 };
}

/** Per-session counters of the probe schedule (persisted with the session state). */
export interface ProbeSchedule {
  /** Model calls prepared so far. */
  steps: number;
  lastProbeStep?: number;
  lastCompactionStep?: number;
  compactions: number;
  /** A `probe-unavailable` event was emitted for this session. */
  unavailableReported?: boolean;
}

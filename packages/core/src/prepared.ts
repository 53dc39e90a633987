import type { BatonEvent } from './events.ts';
import type { HostModel } from './self-compaction.ts';
import type { ToolSchema } from './token-counter.ts';
import type { Entry } from './transcript.ts';

export interface PrepareInput {
  /** The host's full history, converted (`fromOpenAIChat` or an adapter). */
  entries: readonly Entry[];
  /** System prompt sent with the request (counted; notes and notices are appended to it). */
  system?: string;
  /** Tools offered to the model (their schemas are counted). */
  tools?: readonly ToolSchema[];
  /**
   * `false` when the host already shows the notes in the history it passes (Mastra's working
   * memory message): they are not rendered into `Prepared.system` a second time.
   */
  renderNotes?: boolean;
  /** The host's model, for self-compaction probes and continuation summaries (adapters pass it). */
  model?: HostModel;
}

/** Something the agent should read before its next step (rendered at the end of `Prepared.system`). */
export interface Notice {
  type: 'warning' | 'eviction' | 'degrade' | 'unfit';
  text: string;
}

export type Outcome = 'ok' | 'compacted' | 'unfit';

/** What `prepare` returns: the projection to send, and what happened. */
export interface Prepared {
  /** The projection: what the model should see this call. */
  entries: Entry[];
  /** The system prompt to send: the host's, then the agent's notes, then this step's notices. */
  system: string;
  notices: Notice[];
  outcome: Outcome;
  tokens: { before: number; after: number; budget: number };
  events: BatonEvent[];
  /** With `unfit`: where the durable checkpoint is. */
  checkpointRef?: string;
  /** With `unfit`: why nothing smaller could be sent. */
  reason?: string;
}

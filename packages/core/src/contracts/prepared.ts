import type { Entry } from '../transcript/transcript.ts';
import type { BatonEvent, NoticeFacts } from './events.ts';
import type { HostModel } from './host-model.ts';

/** What a call tells about its model and its output limit (adapters read it from the call they wrap). */
export interface CallOutput {
  /** The model id the request goes to: its window, prices, output default, and the session's calibration ratio for it. */
  modelId?: string | undefined;
  /** The provider id as the host reports it (AI SDK `model.provider`). */
  provider?: string | undefined;
  /** The output limit the call sets; absent when the host leaves it to the provider package. */
  maxOutputTokens?: number | undefined;
  /** Why the adapter cannot lower this request's output limit; absent when it can. */
  cannotCapOutput?: string | undefined;
}

/**
 * One model call, as the adapter translates it. `modelId`, `provider`, `maxOutputTokens` and
 * `cannotCapOutput` (from `CallOutput`) give the call's window, prices and output reservation
 * (see `resolveCallBudget`).
 */
export interface PrepareInput extends CallOutput {
  /** The host's full history, converted (`fromOpenAIChat` or an adapter). */
  entries: readonly Entry[];
  /** System prompt sent with the request (counted; the notes block is appended to it). */
  system?: string;
  /** Tools offered to the model (their schemas are counted). */
  tools?: readonly ToolSchema[];
  /**
   * `false` when the host already shows the notes in the history it passes (Mastra's working
   * memory message): they are not rendered into `Prepared.system` a second time, nor told of
   * as a trailing notice.
   */
  renderNotes?: boolean;
  /**
   * `true` when `entries` are a window over a longer history the host keeps (Mastra's
   * `lastMessages`), with seqs that stay with their messages as it slides. The opening request
   * is then the first user message this session saw, kept verbatim while the window holds it;
   * the first user message of a later window is history like any other turn.
   */
  window?: boolean;
  /** The host's model, for self-compaction probes and continuation summaries (adapters pass it). */
  model?: HostModel;
  /**
   * The provider-side compaction this call turns on (see `providerCompactionOf`), told once per
   * session as a `provider-compaction-configured` event: two compactors on one conversation.
   */
  providerCompaction?: string | undefined;
}

/** Something the agent should read before its next step (rendered into `Prepared.trailer`). */
export interface Notice {
  type: 'warning' | 'eviction' | 'degrade' | 'unfit' | 'notes' | 'floor';
  text: string;
  /** The figures the text states, for the `notice-shown` event (counts and refs, never content). */
  facts: NoticeFacts;
}

export type Outcome = 'ok' | 'compacted' | 'unfit';

interface PreparedBase {
  /** The projection: what the model should see this call. */
  entries: Entry[];
  /** The system prompt to send: the host's, then Baton's `block`. */
  system: string;
  /**
   * Baton's part of the system prompt alone: the agent's notes as of the last compaction (''
   * when none). It changes only when a compaction breaks the cached prefix anyway.
   */
  block: string;
  /**
   * This step's notices rendered as one text ('' when none). Hosts send it as a last user
   * message after the conversation (the model reads it last, and no cached byte before it
   * changes); it is never stored in the host's history.
   */
  trailer: string;
  /** Whether `entries` differ from the entries given (a compaction, a repair, a stored unfit reply dropped): hosts that rewrite their history need to. */
  changed: boolean;
  notices: Notice[];
  tokens: { before: number; after: number; budget: number };
  events: BatonEvent[];
  /**
   * The output limit to send with this request, set only where Baton lowered the provider
   * package's default because it cannot fit the window beside the prompt (adapters put it in
   * the request: AI SDK `maxOutputTokens`).
   */
  maxOutputTokens?: number;
}

/** A projection to send: within budget, compacted or not. */
export interface PreparedToSend extends PreparedBase {
  outcome: 'ok' | 'compacted';
}

/** Nothing that fits could be made: the model must not be called; the host ends the step. */
export interface PreparedUnfit extends PreparedBase {
  outcome: 'unfit';
  /** Why nothing smaller could be sent (what fills the window). */
  reason: string;
  /** Where the durable checkpoint is. */
  checkpointRef: string;
  /** The text a host ends the step with, the same in every adapter. */
  message: string;
}

/** What `prepare` returns: the projection to send, and what happened. Narrow on `outcome`. */
export type Prepared = PreparedToSend | PreparedUnfit;

/** A tool the model is offered; its schema costs prompt tokens too. */
export interface ToolSchema {
  name: string;
  description?: string | undefined;
  /** JSON Schema of the arguments (or any JSON-serialisable description). */
  inputSchema?: unknown;
}

/** What one decision took out of the context: the unit of the eviction index. */
export interface EvictedSpan {
  stage: string;
  from: number;
  to: number;
  /** Host entries evicted, in order (archived verbatim). */
  entries: Entry[];
  /**
   * Host entries an earlier stage of the same compaction evicted into a placeholder, digest or
   * summary that this span's decision took in (a result folded, then summarized): the notice
   * names them on this span's line, and that earlier span gets none. Archived with their own span.
   */
  absorbed?: Entry[];
}

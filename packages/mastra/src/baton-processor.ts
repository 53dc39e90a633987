import { randomUUID } from 'node:crypto';
import {
  type Baton,
  BatonConfigError,
  type BatonOptions,
  type CallOutput,
  createBaton,
  type Entry,
  type HostModel,
  type Prepared,
  providerCompactionOf,
  type Session,
  type ToolSchema,
} from '@baton/core';
import {
  entriesToPrompt,
  LruCache,
  type PromptMessage,
  pendingUnfit,
  promptToEntries,
  type UnfitInfo,
  unfitOf as unfitInfoOf,
  withSystemBlock,
  withTrailer,
} from '@baton/core/internals';
import type { MastraMemory } from '@mastra/core/memory';
import type {
  ProcessAPIErrorArgs,
  ProcessAPIErrorResult,
  ProcessInputStepArgs,
  ProcessInputStepResult,
  ProcessLLMRequestArgs,
  ProcessLLMRequestResult,
  ProcessOutputStepArgs,
  Processor,
} from '@mastra/core/processors';
import { batonTools } from './agent-tools.ts';
import { stepOutputCap, stepOutputOf } from './call-model.ts';
import { hostModelOf } from './host-model.ts';
import { assertMastraHost } from './host-version.ts';
import { mastraMemoryStore } from './memory-store.ts';
import { epochOf, type StoredMessage, storedMessageSeqs } from './message-seqs.ts';
import { promptWithCacheHints, providerOptionsWithCacheKey } from './prompt-cache.ts';
import { toolSchemasOf } from './tool-schemas.ts';
import { unfitResponse } from './unfit-response.ts';
import {
  refreshWorkingMemoryMessages,
  type ThreadScope,
  withWorkingMemory,
  workingMemoryNotes,
} from './working-memory-notes.ts';
import { readWorkingMemory } from './working-memory-read.ts';

export interface BatonProcessorOptions extends BatonOptions {
  /**
   * The agent's `Memory`. With working memory enabled, the agent's notes ARE its working
   * memory (the `notes` tool edits it, Mastra's `updateWorkingMemory` tool writes notes) and
   * every step shows its current text. Mastra passes no agent to processors, so it is given here.
   */
  memory?: MastraMemory;
  /**
   * How a run whose conversation no longer fits ends. Default `'reply'`: the step answers with
   * a plain-words explanation (stored like any reply, never re-sent to the model) and the run
   * finishes normally; `processor.unfitOf(result)` tells it apart. `'tripwire'`: the run also
   * ends with a Mastra tripwire carrying the same metadata; Mastra logs any tripwire raised
   * after the model step as a failed workflow step, with a stack trace.
   */
  unfitAs?: 'reply' | 'tripwire';
}

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

/** What one run (`generate` / `stream`) keeps in the processor's per-request state. */
interface RunState {
  session?: Session;
  scope?: ThreadScope;
  tools?: ToolSchema[];
  /** This step ends as `unfit`: the model is not called; processOutputStep records the outcome. */
  unfit?: UnfitInfo | undefined;
  /** Working memory as a compaction of this run last rendered it (Mastra's own, from the run start, until then). */
  workingMemoryShown?: string;
  /** When the memory thread was created: the origin of its messages' seqs. */
  epoch?: number;
  /** This step's model and output limit, as processInputStep saw them (before Baton's cap). */
  output?: CallOutput;
  /** The provider-side compaction the step's providerOptions turn on (told once per session). */
  providerCompaction?: string | undefined;
}

interface MemoryContext {
  thread?: { id?: string; createdAt?: unknown };
  resourceId?: string;
}

/**
 * The session of a run without a memory thread: its own, named by Mastra's run id when the
 * hook is given one (the agent loop passes none today) or a fresh id, so two such runs never
 * share notes, notices or an archive.
 */
function runSessionId(args: { runId?: unknown }): string {
  return `run:${typeof args.runId === 'string' && args.runId.length > 0 ? args.runId : randomUUID()}`;
}

/** The memory context of the run: Mastra puts it in the request context under `MastraMemory`. */
function memoryContextOf(args: {
  requestContext?: { get(key: string): unknown };
}): MemoryContext | undefined {
  return args.requestContext?.get('MastraMemory') as MemoryContext | undefined;
}

/** The memory thread of the run. */
function scopeOf(memory: MemoryContext | undefined, run: RunState): ThreadScope | undefined {
  const threadId = memory?.thread?.id;
  if (typeof threadId === 'string' && threadId.length > 0) {
    return { threadId, ...(memory?.resourceId ? { resourceId: memory.resourceId } : {}) };
  }
  return run.scope;
}

/**
 * Baton as a Mastra processor. Register the same instance as an input, output and error
 * processor (`inputProcessors`, `outputProcessors`, `errorProcessors`), or spread
 * `processor.lists` into the Agent's options:
 *
 * - `processInputStep` (every step): adds `notes`, `compact` and `recall` to the step's
 *   tools.
 * - `processLLMRequest`: the projection for this call only (view mode: Mastra's stored
 *   messages are never changed), the notes in a system message after the host's (re-rendered
 *   only at a compaction; with working memory, Mastra's working-memory message is refreshed
 *   there too), this step's notices in a last user message. So the prompt prefix is byte
 *   stable between compactions and provider caches keep hitting.
 * - `processOutputStep`: the provider's input tokens calibrate the count.
 * - `processAPIError`: a context overflow is retried once after a harder compaction; a second
 *   one ends the step as `unfit`.
 * - `unfit`: the model is not called; the step answers with a plain-words explanation (stored
 *   like any reply, so nothing of the turn is lost, and never re-sent to the model) and the
 *   run ends; `unfitOf(result)` returns the reason and checkpoint (or, with
 *   `unfitAs: 'tripwire'`, the run's tripwire carries them). Never an unhandled error.
 *
 * Throws `BatonConfigError` on a `@mastra/core` older than 1.33 (no `processLLMRequest`).
 *
 * @example
 * ```ts
 * import { BatonProcessor } from '@baton/mastra';
 * import { Agent } from '@mastra/core/agent';
 *
 * const baton = new BatonProcessor({ model: 'gpt-4o', pinnedTools: ['load_skill'] });
 * const agent = new Agent({
 *   id: 'coder',
 *   name: 'Coder',
 *   instructions,
 *   model,
 *   tools,
 *   inputProcessors: [baton],
 *   outputProcessors: [baton],
 *   errorProcessors: [baton],
 * });
 * ```
 */
export class BatonProcessor implements Processor<'baton', BatonTripwireMetadata> {
  readonly id = 'baton' as const;
  readonly name = 'Baton';
  readonly description = 'Context management: budget-gated compaction, notes, recall, graceful unfit';

  /** The core engine behind the processor (options, sessions). */
  readonly core: Baton;
  private readonly options: BatonProcessorOptions;
  /** Each thread's resource, for resource-scoped working memory (bounded like the core's sessions). */
  private readonly scopes: LruCache<string, ThreadScope>;
  /** Each session's last prompt, as entries: what leaves Mastra's window is archived. */
  private readonly windows: LruCache<string, Entry[]>;
  private readonly workingMemory: boolean;
  /** The unfit outcome of recent runs, by response message id (bounded like the core's sessions). */
  private readonly unfitRuns: LruCache<string, BatonUnfitOutcome>;

  constructor(options: BatonProcessorOptions) {
    assertMastraHost();
    const { memory, unfitAs, ...core } = options;
    if (unfitAs !== undefined && unfitAs !== 'reply' && unfitAs !== 'tripwire') {
      throw new BatonConfigError(
        `[baton] [options] unfitAs: expected 'reply' or 'tripwire', received ${JSON.stringify(unfitAs)}`,
        ['unfitAs'],
      );
    }
    if (memory !== undefined && typeof (memory as Partial<MastraMemory>)?.getWorkingMemory !== 'function') {
      throw new BatonConfigError(
        '[baton] [options] memory: expected the Mastra Memory the agent uses (new Memory(...) from @mastra/memory)',
        ['memory'],
      );
    }
    this.options = options;
    this.workingMemory = memory?.getMergedThreadConfig().workingMemory?.enabled === true;
    this.core = createBaton({
      ...core,
      // With the agent's Memory, ledger, state and archive live in its storage: no second database.
      ...(memory && core.store === undefined ? { store: mastraMemoryStore(memory) } : {}),
      ...(memory && this.workingMemory
        ? { notes: workingMemoryNotes(memory, (id) => this.scopes.get(id) ?? { threadId: id }) }
        : {}),
    });
    this.scopes = new LruCache(this.core.options.maxSessions);
    this.windows = new LruCache(this.core.options.maxSessions);
    this.unfitRuns = new LruCache(this.core.options.maxSessions);
  }

  /**
   * Whether a run ended `unfit` (its conversation no longer fits even after every stage), and
   * where its checkpoint is; `undefined` for a run that did not. Pass the result of
   * `agent.generate()`, or `{ response: await stream.response }` for a stream.
   *
   * @example
   * const result = await agent.generate(message, { memory });
   * const unfit = baton.unfitOf(result);
   * if (unfit) showBanner(result.text); // the plain-words explanation
   */
  unfitOf(result: {
    response?: { dbMessages?: readonly { id: string }[] | undefined } | undefined;
  }): BatonUnfitOutcome | undefined {
    for (const message of result.response?.dbMessages ?? []) {
      const outcome = this.unfitRuns.get(message.id);
      if (outcome) return outcome;
    }
    return undefined;
  }

  /** The processor in every list it serves, to spread into `new Agent({ ... })`. */
  get lists(): {
    inputProcessors: BatonProcessor[];
    outputProcessors: BatonProcessor[];
    errorProcessors: BatonProcessor[];
  } {
    return { inputProcessors: [this], outputProcessors: [this], errorProcessors: [this] };
  }

  /**
   * The Baton session of a Mastra memory thread, or of a run without memory (its id is in the
   * `sessionId` of an unfit tripwire's metadata).
   */
  session(id: string): Session {
    return this.core.session(id);
  }

  private runOf(args: {
    state: Record<string, unknown>;
    requestContext?: { get(key: string): unknown };
    runId?: unknown;
  }): RunState {
    const run = args.state as RunState;
    if (!run.session) {
      const memory = memoryContextOf(args);
      const scope = scopeOf(memory, run);
      if (scope) {
        run.scope = scope;
        run.epoch = epochOf(memory?.thread);
        this.scopes.set(scope.threadId, scope);
      }
      run.session = this.session(scope?.threadId ?? runSessionId(args));
    }
    return run;
  }

  async processInputStep(args: ProcessInputStepArgs<BatonTripwireMetadata>): Promise<ProcessInputStepResult> {
    const run = this.runOf(args);
    const session = run.session as Session;
    const tools = { ...args.tools, ...batonTools(session) };
    run.tools = toolSchemasOf(tools);
    // The cache rule: Mastra renders working memory once per run; it changes in the prompt only
    // where a compaction broke the cached prefix anyway (see processLLMRequest).
    if (run.workingMemoryShown !== undefined) this.showWorkingMemory(args, run.workingMemoryShown);
    // The step's model gives the budget; a provider default that cannot fit is lowered here.
    run.output = stepOutputOf(args.model, args.modelSettings);
    run.providerCompaction = providerCompactionOf(args.providerOptions);
    const cap = stepOutputCap(this.core.options, run.output);
    const providerOptions = providerOptionsWithCacheKey(session, args.model, args.providerOptions);
    return {
      tools,
      ...(cap === undefined ? {} : { modelSettings: { ...args.modelSettings, maxOutputTokens: cap } }),
      ...(providerOptions
        ? { providerOptions: providerOptions as NonNullable<ProcessInputStepResult['providerOptions']> }
        : {}),
    };
  }

  private showWorkingMemory(args: ProcessInputStepArgs<BatonTripwireMetadata>, text: string) {
    const tagged = args.messageList.getSystemMessages('memory');
    const texts = tagged.map((m) => (typeof m.content === 'string' ? m.content : ''));
    const refreshed = refreshWorkingMemoryMessages(texts, text);
    if (!refreshed) return;
    args.messageList.clearSystemMessages('memory');
    tagged.forEach((message, i) => {
      args.messageList.addSystem(
        typeof message.content === 'string' ? (refreshed[i] as string) : message,
        'memory',
      );
    });
  }

  async processLLMRequest(
    args: ProcessLLMRequestArgs<BatonTripwireMetadata>,
  ): Promise<ProcessLLMRequestResult> {
    const run = this.runOf(args);
    if (run.unfit) return { response: unfitResponse(run.unfit) };
    const prepared = await this.prepare(
      run,
      args.prompt as unknown as PromptMessage[],
      hostModelOf(args.model),
      args.messageList?.get.all.db(),
    );
    run.unfit = unfitInfoOf(prepared);
    if (run.unfit) return { response: unfitResponse(run.unfit) };
    let prompt = withTrailer(
      withSystemBlock(entriesToPrompt(prepared.entries), prepared.system),
      prepared.trailer,
    );
    if (prepared.outcome === 'compacted' && this.workingMemory && run.scope) {
      // The prefix breaks here anyway: working memory as it is now, in this call and the run's next steps.
      const memory = this.options.memory as MastraMemory;
      const text = await readWorkingMemory(memory, run.scope, this.core.options, (run.session as Session).id);
      // A failed read (reported) keeps what the run shows: the prefix is new anyway.
      if (text !== undefined) {
        run.workingMemoryShown = text;
        prompt = withWorkingMemory(prompt, text);
      }
    }
    prompt = promptWithCacheHints(run.session as Session, args.model, prepared, prompt);
    return { prompt: prompt as unknown as ProcessLLMRequestArgs['prompt'] };
  }

  private async prepare(
    run: RunState,
    prompt: PromptMessage[],
    model: HostModel | undefined,
    stored: readonly StoredMessage[] | undefined,
  ): Promise<Prepared> {
    const session = run.session as Session;
    // Keyed by content and numbered by each stored message's time: Mastra's lastMessages
    // window drops the oldest messages as a thread grows, and decisions, archive records and
    // the seq ranges the agent is told must keep meaning the same messages.
    const seqs = run.scope && stored ? storedMessageSeqs(prompt, stored, run.epoch ?? 0) : undefined;
    const entries = promptToEntries(prompt, undefined, 'content', seqs && ((message) => seqs.get(message)));
    // What slid out of the window since this session's last call is archived, so recall
    // reaches turns older than lastMessages.
    const previous = this.windows.get(session.id);
    this.windows.set(session.id, entries);
    if (previous) {
      const present = new Set(entries.map((entry) => entry.key));
      const dropped = previous.filter((entry) => !present.has(entry.key));
      if (dropped.length > 0) await session.archiveDropped(dropped);
    }
    return session.prepare({
      entries,
      ...(run.tools ? { tools: run.tools } : {}),
      // The agent's model answers probes and writes continuation summaries.
      ...(model ? { model } : {}),
      ...run.output,
      providerCompaction: run.providerCompaction,
      // Working memory is in Mastra's own system message already (refreshed at compactions).
      ...(this.workingMemory ? { renderNotes: false } : {}),
      // The thread's lastMessages window, numbered by stored message: it slides past the opening request.
      ...(seqs ? { window: true } : {}),
    });
  }

  processOutputStep(args: ProcessOutputStepArgs<BatonTripwireMetadata>) {
    const run = this.runOf(args);
    if (run.unfit) {
      const { reason, checkpointRef, message } = run.unfit;
      const outcome: BatonUnfitOutcome = {
        outcome: 'unfit',
        reason,
        checkpointRef,
        sessionId: (run.session as Session).id,
      };
      // Keyed by the run's response messages: they come back in the result, its run id does not
      // reach processors.
      for (const message of args.messageList.get.response.db()) this.unfitRuns.set(message.id, outcome);
      // The reply already ended the step; a tripwire from here is Mastra's failed-step path.
      if (this.options.unfitAs === 'tripwire') args.abort(message, { metadata: outcome });
    }
    const input = args.usage?.inputTokens;
    if (typeof input === 'number' && input > 0) run.session?.observeUsage({ inputTokens: input });
    return args.messageList;
  }

  async processAPIError(
    args: ProcessAPIErrorArgs<BatonTripwireMetadata>,
  ): Promise<ProcessAPIErrorResult | undefined> {
    const run = this.runOf(args);
    if (run.unfit) return undefined;
    const verdict = await (run.session as Session).recoverFromOverflow(args.error);
    if (verdict === 'not-overflow') return undefined;
    if (verdict === 'unfit') {
      // Mastra cannot end a run from this hook cleanly: the retried step answers as unfit instead.
      run.unfit = pendingUnfit(run.session as Session);
    }
    return { retry: true };
  }
}

/**
 * `new BatonProcessor(options)`.
 *
 * @example
 * ```ts
 * const baton = batonProcessor({ model: 'gpt-4o' });
 * const agent = new Agent({ id, name, instructions, model, tools, ...baton.lists });
 * ```
 */
export function batonProcessor(options: BatonProcessorOptions): BatonProcessor {
  return new BatonProcessor(options);
}

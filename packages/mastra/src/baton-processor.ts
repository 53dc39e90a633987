import { randomUUID } from 'node:crypto';
import {
  type Baton,
  BatonConfigError,
  type BatonOptions,
  createBaton,
  type Entry,
  type HostModel,
  type Prepared,
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
  unfitOf,
  withSystemBlock,
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
import { hostModelOf } from './host-model.ts';
import { assertMastraHost } from './host-version.ts';
import { mastraMemoryStore } from './memory-store.ts';
import { toolSchemasOf } from './tool-schemas.ts';
import { unfitResponse } from './unfit-response.ts';
import {
  refreshWorkingMemoryMessages,
  type ThreadScope,
  workingMemoryNotes,
} from './working-memory-notes.ts';

export interface BatonProcessorOptions extends BatonOptions {
  /**
   * The agent's `Memory`. With working memory enabled, the agent's notes ARE its working
   * memory (the `notes` tool edits it, Mastra's `updateWorkingMemory` tool writes notes) and
   * every step shows its current text. Mastra passes no agent to processors, so it is given here.
   */
  memory?: MastraMemory;
}

/** Metadata of the tripwire an `unfit` step ends with. */
export interface BatonTripwireMetadata {
  outcome: 'unfit';
  reason: string;
  checkpointRef: string;
  /** The Baton session of the run (`processor.session(sessionId).readCheckpoint(checkpointRef)`). */
  sessionId: string;
}

/** What one run (`generate` / `stream`) keeps in the processor's per-request state. */
interface RunState {
  session?: Session;
  scope?: ThreadScope;
  tools?: ToolSchema[];
  /** This step ends as `unfit`: the model is not called; processOutputStep trips the wire. */
  unfit?: UnfitInfo | undefined;
}

interface MemoryContext {
  thread?: { id?: string };
  resourceId?: string;
}

/**
 * The session of a run without a memory thread: its own, named by Mastra's run id (or a
 * fresh one), so two such runs never share notes, notices or an archive.
 */
function runSessionId(args: { runId?: unknown }): string {
  return `run:${typeof args.runId === 'string' && args.runId.length > 0 ? args.runId : randomUUID()}`;
}

/** The memory thread of the run: Mastra puts it in the request context under `MastraMemory`. */
function scopeOf(
  args: { requestContext?: { get(key: string): unknown } },
  run: RunState,
): ThreadScope | undefined {
  const memory = args.requestContext?.get('MastraMemory') as MemoryContext | undefined;
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
 *   tools, and refreshes Mastra's working-memory message so a mid-run update is seen at once.
 * - `processLLMRequest`: the projection for this call only (view mode: Mastra's stored
 *   messages are never changed), notes and notices in a system message after the host's.
 * - `processOutputStep`: the provider's input tokens calibrate the count.
 * - `processAPIError`: a context overflow is retried once after a harder compaction; a second
 *   one ends the step as `unfit`.
 * - `unfit`: the model is not called; the step answers with an explanation (stored like any
 *   reply, so nothing of the turn is lost) and the run ends with a tripwire whose metadata
 *   holds the checkpoint. Never an unhandled error.
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

  constructor(options: BatonProcessorOptions) {
    assertMastraHost();
    const { memory, ...core } = options;
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
      const scope = scopeOf(args, run);
      if (scope) {
        run.scope = scope;
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
    if (this.workingMemory && this.options.memory && run.scope)
      await this.refreshWorkingMemory(args, run.scope);
    return { tools };
  }

  private async refreshWorkingMemory(args: ProcessInputStepArgs<BatonTripwireMetadata>, scope: ThreadScope) {
    const memory = this.options.memory as MastraMemory;
    const tagged = args.messageList.getSystemMessages('memory');
    const texts = tagged.map((m) => (typeof m.content === 'string' ? m.content : ''));
    const current = (await memory.getWorkingMemory(scope)) ?? '';
    const refreshed = refreshWorkingMemoryMessages(texts, current);
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
    );
    run.unfit = unfitOf(prepared);
    if (run.unfit) return { response: unfitResponse(run.unfit) };
    const prompt = withSystemBlock(entriesToPrompt(prepared.entries), prepared.system);
    return { prompt: prompt as unknown as ProcessLLMRequestArgs['prompt'] };
  }

  private async prepare(
    run: RunState,
    prompt: PromptMessage[],
    model: HostModel | undefined,
  ): Promise<Prepared> {
    const session = run.session as Session;
    // Keyed by content: Mastra's lastMessages window drops the oldest messages as a thread
    // grows, and decisions must keep matching the messages they were made for.
    const entries = promptToEntries(prompt, undefined, 'content');
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
      // Working memory is in Mastra's own system message already (refreshed every step).
      ...(this.workingMemory ? { renderNotes: false } : {}),
    });
  }

  processOutputStep(args: ProcessOutputStepArgs<BatonTripwireMetadata>) {
    const run = this.runOf(args);
    if (run.unfit) {
      const { reason, checkpointRef, message } = run.unfit;
      args.abort(message, {
        metadata: { outcome: 'unfit', reason, checkpointRef, sessionId: (run.session as Session).id },
      });
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

import { type Baton, createBaton, type HostModel, type Prepared, type Session } from '@baton/core';
import {
  entriesToPrompt,
  type PromptMessage,
  pendingUnfit,
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
import { hostModelOf } from './host-model.ts';
import { assertMastraHost } from './host-version.ts';
import type { StoredMessage } from './message-seqs.ts';
import {
  assertProcessorOptions,
  type BatonProcessorOptions,
  coreOptionsOf,
  workingMemoryEnabled,
} from './processor-options.ts';
import { promptWithCacheHints } from './prompt-cache.ts';
import { RunSessions, type RunState } from './run-state.ts';
import { stepCallSettings } from './step-call-settings.ts';
import { WindowArchive, windowEntries } from './thread-window.ts';
import { toolSchemasOf } from './tool-schemas.ts';
import { type BatonTripwireMetadata, type BatonUnfitOutcome, UnfitOutcomes } from './unfit-outcomes.ts';
import { unfitResponse } from './unfit-response.ts';
import { promptWithCurrentWorkingMemory, showWorkingMemory } from './working-memory-prompt.ts';

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
  private readonly runs: RunSessions;
  private readonly windows: WindowArchive;
  private readonly workingMemory: boolean;
  private readonly unfitRuns: UnfitOutcomes;

  constructor(options: BatonProcessorOptions) {
    assertMastraHost();
    assertProcessorOptions(options);
    this.options = options;
    this.workingMemory = workingMemoryEnabled(options.memory);
    this.core = createBaton(coreOptionsOf(options, this.workingMemory, (id) => this.runs.scopeOf(id)));
    this.runs = new RunSessions(this.core);
    this.windows = new WindowArchive(this.core.options.maxSessions);
    this.unfitRuns = new UnfitOutcomes(this.core.options.maxSessions);
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
    return this.unfitRuns.of(result);
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

  async processInputStep(args: ProcessInputStepArgs<BatonTripwireMetadata>): Promise<ProcessInputStepResult> {
    const run = this.runs.of(args);
    const session = run.session as Session;
    const tools = { ...args.tools, ...batonTools(session) };
    run.tools = toolSchemasOf(tools);
    // The cache rule: Mastra renders working memory once per run; it changes in the prompt only
    // where a compaction broke the cached prefix anyway (see processLLMRequest).
    if (run.workingMemoryShown !== undefined) showWorkingMemory(args.messageList, run.workingMemoryShown);
    // The step's model gives the budget; a provider default that cannot fit is lowered here.
    const step = stepCallSettings(this.core.options, session, args);
    run.output = step.output;
    run.providerCompaction = step.providerCompaction;
    return { tools, ...step.changes };
  }

  async processLLMRequest(
    args: ProcessLLMRequestArgs<BatonTripwireMetadata>,
  ): Promise<ProcessLLMRequestResult> {
    const run = this.runs.of(args);
    const session = run.session as Session;
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
      const current = await promptWithCurrentWorkingMemory(
        prompt,
        memory,
        run.scope,
        this.core.options,
        session.id,
      );
      prompt = current.prompt;
      if (current.shown !== undefined) run.workingMemoryShown = current.shown;
    }
    prompt = promptWithCacheHints(session, args.model, prepared, prompt);
    return { prompt: prompt as unknown as ProcessLLMRequestArgs['prompt'] };
  }

  private async prepare(
    run: RunState,
    prompt: PromptMessage[],
    model: HostModel | undefined,
    stored: readonly StoredMessage[] | undefined,
  ): Promise<Prepared> {
    const session = run.session as Session;
    const { entries, windowed } = windowEntries(prompt, run.scope ? stored : undefined, run.epoch);
    await this.windows.archiveDropped(session, entries);
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
      ...(windowed ? { window: true } : {}),
    });
  }

  processOutputStep(args: ProcessOutputStepArgs<BatonTripwireMetadata>) {
    const run = this.runs.of(args);
    if (run.unfit) {
      const sessionId = (run.session as Session).id;
      const outcome = this.unfitRuns.record(run.unfit, sessionId, args.messageList.get.response.db());
      // The reply already ended the step; a tripwire from here is Mastra's failed-step path.
      if (this.options.unfitAs === 'tripwire') args.abort(run.unfit.message, { metadata: outcome });
    }
    const input = args.usage?.inputTokens;
    if (typeof input === 'number' && input > 0) run.session?.observeUsage({ inputTokens: input });
    return args.messageList;
  }

  async processAPIError(
    args: ProcessAPIErrorArgs<BatonTripwireMetadata>,
  ): Promise<ProcessAPIErrorResult | undefined> {
    const run = this.runs.of(args);
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

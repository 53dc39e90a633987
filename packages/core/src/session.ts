import { createAgentTools, type NeutralTool } from './agent-tools.ts';
import { type ArchiveApi, archiveApi } from './archive.ts';
import { archivedRanges, type Checkpoint, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import { describeError } from './errors.ts';
import type { BatonEvent } from './events.ts';
import { buildGroups, type PinPolicy } from './groups.ts';
import { runLadder } from './ladder.ts';
import { applyLedger, type Decision, type Ledger } from './ledger.ts';
import { Notes, type NotesApi, renderNotes } from './notes.ts';
import {
  degradeNotice,
  type EvictedSpan,
  evictionNotice,
  renderNotices,
  unfitNotice,
  warningNotice,
} from './notices.ts';
import type { ResolvedOptions } from './options.ts';
import { detectContextOverflow } from './overflow.ts';
import { repairTranscript } from './repair.ts';
import type { ProbeDecision } from './rubrics.ts';
import {
  type HostModel,
  type ProbeJudge,
  type ProbeSchedule,
  probeSkipReason,
  type ResolvedSelfCompact,
  runProbe,
} from './self-compaction.ts';
import { initialState, type SessionState, STATE_NAMESPACE } from './session-state.ts';
import type { Stage } from './stage.ts';
import { previewChars } from './stages/degrade.ts';
import type { ArchiveRecord } from './store.ts';
import type { Summarizer } from './summarizer.ts';
import { boundedSummarize } from './summarizers/bounded.ts';
import { continuationSummarizer, type TextCompletion } from './summarizers/continuation.ts';
import { PER_REQUEST, type TokenCounter, type ToolSchema } from './token-counter.ts';
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

/** Shared by all sessions of one `createBaton` call. */
export interface Engine {
  options: ResolvedOptions;
  counter: TokenCounter;
  stages: readonly Stage[];
  /** The summarize stages among `stages` (all of them when there is none): what a probe's COMPRESS runs. */
  summarizeStages: readonly Stage[];
  pinPolicy: PinPolicy;
  summaryMemo: Map<string, string>;
  /** Model-backed continuation summarizers by the host's completion function, each with its own memo. */
  continuations: WeakMap<TextCompletion, { summarizer: Summarizer; memo: Map<string, string> }>;
}

const LEDGER_NAMESPACE = 'baton/ledger';
const LEDGER_ATTEMPTS = 8;
/** An overflow retry aims this much lower than targetAt. */
const OVERFLOW_TIGHTEN = 0.7;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function archiveRecords(spans: readonly EvictedSpan[], now: number): ArchiveRecord[] {
  return spans.flatMap((span) =>
    span.entries.map((entry) => ({
      ref: entry.key,
      seq: entry.seq,
      entry,
      stage: span.stage,
      archivedAt: now,
    })),
  );
}

function joinBlocks(...blocks: string[]): string {
  return blocks.filter((b) => b.length > 0).join('\n\n');
}

/**
 * One conversation's context manager. `prepare` runs before every model call: it repairs the
 * transcript, re-applies the persisted ledger, measures, runs the ladder when over
 * `compactAt` (or when the agent asked), archives what it evicts before returning, persists
 * its decisions, and renders the agent's notes and this step's notices into the system
 * prompt. It never throws for summarizer, stage or store failures (they become events).
 */
export class Session {
  readonly archive: ArchiveApi;
  readonly notes: NotesApi;
  /** The agent tools (notes, compact, recall) in neutral form; adapters expose them in host idiom. */
  readonly tools: NeutralTool[];
  private readonly notesStore: Notes;
  private ledger: Ledger = { decisions: [] };
  private ledgerVersion = 0;
  private state: SessionState = initialState();
  private stateVersion = 0;
  private stateDirty = false;
  private loaded = false;
  private lastRawTotal = 0;
  private lastTokens = 0;
  private readonly archivedOrphans = new Set<string>();

  constructor(
    readonly id: string,
    private readonly engine: Engine,
  ) {
    const { options, counter } = engine;
    this.archive = archiveApi(options.store, id);
    this.notesStore = new Notes(options.store, id, options.notesCap, (text) =>
      counter.scale(counter.rawText(text)),
    );
    this.notes = this.notesStore;
    this.tools = createAgentTools({
      notes: this.notes,
      archive: this.archive,
      requestCompaction: (instruction) => this.requestCompactionDurably(instruction),
      budgetNow: () => ({ tokens: this.lastTokens, target: options.targetAt * options.inputBudget }),
      recallLimit: Math.max(2_000, Math.floor(options.inputBudget * 0.1 * 3)),
    });
  }

  /** The compact tool's path: the request is stored at once, so another worker's next call honours it. */
  private async requestCompactionDurably(instruction: string | undefined): Promise<void> {
    const quiet = () => undefined;
    await this.load(quiet);
    this.requestCompaction(instruction);
    if (this.loaded) await this.persistState(quiet);
  }

  /** Asks for a compaction down to `targetAt` before the next model call, guided by `instruction`. */
  requestCompaction(instruction?: string): void {
    this.state.pendingCompaction = instruction === undefined ? {} : { instruction };
    this.stateDirty = true;
  }

  /** Feeds the provider's reported input tokens of the last call into the calibration. */
  observeUsage(usage: { inputTokens: number }): void {
    this.engine.counter.calibrate(this.lastRawTotal, usage.inputTokens);
    if (this.state.overflowStreak !== 0) {
      this.state.overflowStreak = 0;
      this.stateDirty = true;
    }
  }

  /**
   * After a provider rejected the last request: `'retry'` when it was a context-length error
   * (calibration learns the provider's count and the next `prepare` compacts to a tighter
   * target), `'unfit'` when it is the second in a row (a checkpoint is written and the next
   * turn is told), `'not-overflow'` for any other error.
   */
  async recoverFromOverflow(error: unknown): Promise<'retry' | 'unfit' | 'not-overflow'> {
    const report = detectContextOverflow(error);
    if (!report) return 'not-overflow';
    this.state.overflowStreak++;
    this.stateDirty = true;
    if (report.tokens !== undefined) this.engine.counter.calibrate(this.lastRawTotal, report.tokens);
    if (this.state.overflowStreak >= 2) {
      const reason = `the provider rejected the request as too long twice in a row (${report.message})`;
      const tokens = report.tokens ?? this.lastTokens;
      const checkpointRef = await this.checkpoint(reason, tokens, () => undefined);
      this.state.unfit = { reason, checkpointRef, tokens, budget: this.engine.options.inputBudget };
      this.state.overflowStreak = 0;
      await this.persistState(() => undefined);
      return 'unfit';
    }
    this.state.pendingCompaction = { ...this.state.pendingCompaction, tighten: OVERFLOW_TIGHTEN };
    await this.persistState(() => undefined);
    return 'retry';
  }

  /** The latest `unfit` outcome (reason, checkpoint), until the next call has told the agent about it. */
  get unfit(): { reason: string; checkpointRef: string; tokens: number } | undefined {
    const unfit = this.state.unfit;
    return unfit
      ? { reason: unfit.reason, checkpointRef: unfit.checkpointRef, tokens: unfit.tokens }
      : undefined;
  }

  /** Reads a checkpoint written by an `unfit` outcome. */
  readCheckpoint(ref: string): Promise<Checkpoint | undefined> {
    return readCheckpoint(this.engine.options.store, ref);
  }

  async prepare(input: PrepareInput): Promise<Prepared> {
    const { options, counter } = this.engine;
    const events: BatonEvent[] = [];
    const emit = (event: BatonEvent) => {
      events.push(event);
      try {
        options.onEvent?.(event);
      } catch {
        // A listener's failure is the listener's; the model call goes on.
      }
    };
    await this.load(emit);

    const repaired = repairTranscript(input.entries);
    if (repaired.orphaned.length > 0 || repaired.missingResults > 0) {
      await this.archiveOrphans(repaired.orphaned, emit);
      emit({
        type: 'transcript-repaired',
        orphanResults: repaired.orphanResults,
        missingResults: repaired.missingResults,
        refs: repaired.orphaned.map((e) => e.key),
      });
    }

    const notices: Notice[] = [];
    if (this.state.unfit) {
      const { reason, checkpointRef, tokens, budget } = this.state.unfit;
      notices.push(unfitNotice(reason, checkpointRef, tokens, budget));
      this.state.unfit = undefined;
      this.stateDirty = true;
    }

    const baseSystem = joinBlocks(
      input.system ?? '',
      input.renderNotes === false ? '' : await this.renderedNotes(emit),
    );
    const toolsRaw = counter.rawTools(input.tools) + PER_REQUEST;
    const entriesRaw = (entries: readonly Entry[]) => {
      let raw = 0;
      for (const entry of entries) raw += counter.raw(entry);
      return raw;
    };
    let projection = applyLedger(repaired.entries, this.ledger.decisions);
    // The entries are summed once per projection; system variants only add their own text.
    let projectionRaw = entriesRaw(projection);
    const measure = (system: string) => toolsRaw + counter.rawText(system) + projectionRaw;
    const before = counter.scale(measure(baseSystem));
    const budget = options.inputBudget;
    let outcome: Outcome = 'ok';

    // The probe schedule counts model calls; it is kept (and persisted) only with probes on.
    const schedule = options.selfCompact ? this.probeSchedule() : undefined;
    if (schedule) {
      schedule.steps++;
      this.stateDirty = true;
    }

    let forced = this.state.pendingCompaction;
    if (forced) {
      this.state.pendingCompaction = undefined;
      this.stateDirty = true;
    }
    const backstop = before > options.compactAt * budget;
    // Below the backstop, a probe may choose this moment: the model judges its own trajectory.
    let early = false;
    if (!forced && !backstop && options.selfCompact && schedule) {
      const probe = await this.probe(
        options.selfCompact,
        schedule,
        before,
        projection,
        baseSystem,
        input.model,
        emit,
      );
      if (probe === 'COMPRESS') {
        forced = { instruction: options.selfCompact.rubric.summaryInstruction };
        early = true;
      }
    }
    const continuation = this.continuationSummarizer(input.model);
    const summarizer = continuation?.summarizer ?? options.summarizer;
    const summaryMemo = continuation?.memo ?? this.engine.summaryMemo;
    // An explicit request compacts even below targetAt: the agent chose a closed unit of work.
    // A probe's COMPRESS condenses the whole closed unit (all but the newest turns) into a
    // continuation summary: the summarize stage alone, with no token target to stop early.
    const target = early
      ? 0
      : forced
        ? Math.min(options.targetAt * budget * (forced.tighten ?? 1), before * 0.5)
        : options.targetAt * budget;
    if (backstop || (forced && before > target)) {
      let summaryFailed = false;
      const ladderEmit = (event: BatonEvent) => {
        if (event.type === 'summarizer-failed') summaryFailed = true;
        emit(event);
      };
      const result = await runLadder({
        entries: projection,
        stages: early ? this.engine.summarizeStages : this.engine.stages,
        overhead: counter.scale(toolsRaw + counter.rawText(baseSystem)),
        target,
        budget,
        truncateLimit: forced?.tighten ? target : options.truncateAt * budget,
        instruction: forced?.instruction,
        options,
        pinPolicy: this.engine.pinPolicy,
        count: (entry) => counter.count(entry),
        summarize: (entries, priorSummary) =>
          boundedSummarize(
            {
              summarizer,
              countEntry: (entry) => counter.count(entry),
              countText: (text) => counter.scale(counter.rawText(text)),
              maxInputTokens: options.maxSummaryInputTokens,
              maxTokens: options.maxSummaryTokens,
              memo: summaryMemo,
            },
            entries,
            forced?.instruction,
            priorSummary,
          ),
        noticeTokens: (spans) =>
          spans.length === 0
            ? 0
            : counter.scale(counter.rawText(renderNotices(this.compactionNotices(spans, before)))) + 8,
        emit: ladderEmit,
      });
      if (early && summaryFailed) {
        // An optional compaction whose summary failed is not worth a half-done context change.
        emit({
          type: 'self-compaction-abandoned',
          step: schedule?.steps ?? 0,
          reason: 'the continuation summary failed',
        });
      } else if (result.decisions.length > 0 && (await this.commit(result.decisions, result.spans, emit))) {
        projection = result.entries;
        projectionRaw = entriesRaw(projection);
        outcome = 'compacted';
        notices.push(...this.compactionNotices(result.spans, before - result.tokens));
        if (schedule) {
          schedule.lastCompactionStep = schedule.steps;
          if (early) schedule.compactions++;
          const summaries = projection.filter((e) => e.meta?.synthetic === 'summary');
          emit({
            type: 'self-compacted',
            step: schedule.steps,
            early,
            tokensBefore: before,
            tokensAfter: result.tokens,
            summaryTokens: summaries.reduce((sum, e) => sum + counter.count(e), 0),
            messagesCompressed: result.spans.reduce((sum, span) => sum + span.entries.length, 0),
          });
        }
      }
    }

    // What the model reads this step, notices so far included: the observable size decides warnings.
    const settled = counter.scale(measure(joinBlocks(baseSystem, renderNotices(notices))));
    if (outcome === 'compacted' && this.state.warned && settled <= options.warnAt * budget) {
      this.state.warned = false; // a real drop re-arms the warning
      this.stateDirty = true;
    }
    if (!this.state.warned && settled > options.warnAt * budget && settled <= budget) {
      notices.push(warningNotice(settled, budget, options.compactAt * budget));
      this.state.warned = true;
      this.stateDirty = true;
    }

    const system = joinBlocks(baseSystem, renderNotices(notices));
    const raw = measure(system);
    const after = counter.scale(raw);
    let checkpointRef: string | undefined;
    let reason: string | undefined;
    if (after > budget) {
      outcome = 'unfit';
      reason = this.unfitReason(projection, baseSystem, budget);
      emit({ type: 'budget-exceeded', tokens: after, budget, reason });
      checkpointRef = await this.checkpoint(reason, after, emit);
      this.state.unfit = { reason, checkpointRef, tokens: after, budget };
      this.stateDirty = true;
    }
    await this.persistState(emit);
    this.lastRawTotal = raw;
    this.lastTokens = after;
    return {
      entries: projection,
      system,
      notices,
      outcome,
      tokens: { before, after, budget },
      events,
      ...(checkpointRef !== undefined ? { checkpointRef } : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
  }

  /** The eviction notice (every span but degrade's) and the degrade notice, for what one ladder run did. */
  private compactionNotices(spans: readonly EvictedSpan[], tokensFreed: number): Notice[] {
    const notices: Notice[] = [];
    const evictions = spans.filter((s) => s.stage !== 'degrade');
    const degraded = spans.filter((s) => s.stage === 'degrade');
    if (evictions.length > 0) notices.push(evictionNotice(evictions, tokensFreed));
    if (degraded.length > 0) {
      notices.push(
        degradeNotice(
          degraded.flatMap((span) => span.entries),
          previewChars(this.engine.options.inputBudget),
        ),
      );
    }
    return notices;
  }

  /** Names what filled the context, pinned tools with their sizes first. */
  private unfitReason(projection: readonly Entry[], system: string, budget: number): string {
    const { counter } = this.engine;
    const groups = buildGroups(projection, this.engine.pinPolicy);
    const parts: string[] = [`system prompt and notes ${fmt(counter.scale(counter.rawText(system)))} tokens`];
    const pinned = new Map<string, number>();
    for (const group of groups) {
      if (!group.pinned) continue;
      const tokens = group.entries.reduce((sum, e) => sum + counter.count(e), 0);
      const name = group.toolNames[0] ?? 'pinned entries';
      pinned.set(name, (pinned.get(name) ?? 0) + tokens);
    }
    for (const [name, tokens] of pinned) parts.push(`pinned tool ${name} ${fmt(tokens)} tokens`);
    const latest = groups.find((g) => g.latestRequest);
    if (latest)
      parts.push(
        `the current request ${fmt(latest.entries.reduce((s, e) => s + counter.count(e), 0))} tokens`,
      );
    const newest = groups.at(-1);
    if (newest && newest !== latest && !newest.pinned) {
      parts.push(`the newest step ${fmt(newest.entries.reduce((s, e) => s + counter.count(e), 0))} tokens`);
    }
    return `${parts.join(' + ')} exceed the ${fmt(budget)}-token budget even after every stage (protected content is never evicted)`;
  }

  private async checkpoint(reason: string, tokens: number, emit: (e: BatonEvent) => void): Promise<string> {
    const { store, inputBudget } = this.engine.options;
    const sequence = ++this.state.checkpoints;
    this.stateDirty = true;
    try {
      return await writeCheckpoint(
        store,
        {
          sessionId: this.id,
          createdAt: Date.now(),
          reason,
          tokens,
          budget: inputBudget,
          notes: await this.notesStore.sections(),
          ledger: { version: this.ledgerVersion, decisions: this.ledger.decisions.length },
          archived: archivedRanges(this.ledger),
        },
        sequence,
      );
    } catch (error) {
      emit({ type: 'store-failed', operation: 'writeCheckpoint', error: describeError(error) });
      return `${this.id}/checkpoint-${sequence} (not persisted: the store failed)`;
    }
  }

  private probeSchedule(): ProbeSchedule {
    this.state.probe ??= { steps: 0, compactions: 0 };
    return this.state.probe;
  }

  /** With probes on and the host's model at hand, summaries are model-backed, for the rubric's kind of work. */
  private continuationSummarizer(
    model: HostModel | undefined,
  ): { summarizer: Summarizer; memo: Map<string, string> } | undefined {
    const config = this.engine.options.selfCompact;
    const complete = config?.complete ?? model?.complete;
    if (!config || !complete || !config.modelSummaries) return undefined;
    let cached = this.engine.continuations.get(complete);
    if (!cached) {
      cached = { summarizer: continuationSummarizer(complete, config.rubric), memo: new Map() };
      this.engine.continuations.set(complete, cached);
    }
    return cached;
  }

  /** Runs a probe when the schedule and the context allow one; its decision, or undefined when none ran. */
  private async probe(
    config: ResolvedSelfCompact,
    schedule: ProbeSchedule,
    tokens: number,
    entries: readonly Entry[],
    system: string,
    model: HostModel | undefined,
    emit: (e: BatonEvent) => void,
  ): Promise<ProbeDecision | undefined> {
    const judge = config.judge ?? model?.judge;
    if (probeSkipReason(config, schedule, tokens, entries, judge) !== undefined) return undefined;
    schedule.lastProbeStep = schedule.steps;
    const { counter } = this.engine;
    const result = await runProbe(
      config,
      judge as ProbeJudge,
      { entries, system },
      (prompt) => tokens + counter.scale(counter.rawText(prompt)),
    );
    emit({
      type: 'probe-decided',
      rubric: config.rubric.id,
      step: schedule.steps,
      tokens,
      decision: result.decision,
      ...(result.modelDecision
        ? { modelDecision: result.modelDecision, agreed: result.modelDecision === result.decision }
        : {}),
      criteria: result.answers.map((a) => ({ id: a.id, answer: a.answer ? 'Y' : 'N' })),
      costTokens: result.costTokens,
      ...(result.error ? { error: result.error } : {}),
    });
    return result.decision;
  }

  private async renderedNotes(emit: (e: BatonEvent) => void): Promise<string> {
    try {
      // Re-read every call: notes written by another worker, or by the host's own memory tool
      // (Mastra's working memory), are in this call's prompt, not a stale copy.
      await this.notesStore.refresh();
      return renderNotes(await this.notesStore.sections());
    } catch (error) {
      emit({ type: 'store-failed', operation: 'readNotes', error: describeError(error) });
      return '';
    }
  }

  /**
   * Write-ahead: the evicted entries reach the archive before the decisions that evict them
   * are kept. If the archive cannot be written the decisions are dropped (nothing is evicted
   * that could not be recalled). A ledger that cannot be persisted stays in memory.
   */
  private async commit(
    decisions: Decision[],
    spans: readonly EvictedSpan[],
    emit: (e: BatonEvent) => void,
  ): Promise<boolean> {
    const { store } = this.engine.options;
    try {
      if (spans.length > 0) await store.appendArchive(this.id, archiveRecords(spans, Date.now()));
    } catch (error) {
      emit({ type: 'store-failed', operation: 'appendArchive', error: describeError(error) });
      return false;
    }
    let next: Ledger = { decisions: [...this.ledger.decisions, ...decisions] };
    try {
      let put = await store.putDocument(LEDGER_NAMESPACE, this.id, next, this.ledgerVersion);
      // Another worker committed first: apply these decisions on top of its ledger (later
      // decisions win per key, so the union is a valid ledger) and try again.
      for (let attempt = 1; !put.ok && attempt < LEDGER_ATTEMPTS; attempt++) {
        emit({
          type: 'ledger-conflict',
          expectedVersion: this.ledgerVersion,
          currentVersion: put.currentVersion,
        });
        const current = await store.getDocument<Ledger>(LEDGER_NAMESPACE, this.id);
        this.ledgerVersion = current?.version ?? 0;
        next = { decisions: [...(current?.value.decisions ?? []), ...decisions] };
        put = await store.putDocument(LEDGER_NAMESPACE, this.id, next, this.ledgerVersion);
      }
      if (put.ok) this.ledgerVersion = put.version;
      else
        emit({
          type: 'store-failed',
          operation: 'putDocument',
          error: `the ledger changed ${LEDGER_ATTEMPTS} times during one compaction`,
        });
    } catch (error) {
      emit({ type: 'store-failed', operation: 'putDocument', error: describeError(error) });
    }
    this.ledger = next;
    return true;
  }

  /**
   * Reads the ledger and state before every call: another worker serving this session (or a
   * restarted process) may have committed decisions since, and this projection must apply
   * them too. Unchanged versions keep the parsed copies.
   */
  private async load(emit: (e: BatonEvent) => void): Promise<void> {
    const { store } = this.engine.options;
    try {
      const [ledger, state] = await Promise.all([
        this.unchanged(LEDGER_NAMESPACE, this.ledgerVersion).then((same) =>
          same ? undefined : store.getDocument<Ledger>(LEDGER_NAMESPACE, this.id),
        ),
        this.unchanged(STATE_NAMESPACE, this.stateVersion).then((same) =>
          same ? undefined : store.getDocument<SessionState>(STATE_NAMESPACE, this.id),
        ),
      ]);
      if (ledger && ledger.version !== this.ledgerVersion) {
        this.ledger = ledger.value;
        this.ledgerVersion = ledger.version;
      }
      if (state && state.version !== this.stateVersion) {
        // Another worker (or a restart) moved the state: adopt it, keeping a compact request
        // made here and not yet stored.
        const local = this.stateDirty ? this.state.pendingCompaction : undefined;
        this.state = { ...state.value, ...(local ? { pendingCompaction: local } : {}) };
        this.stateVersion = state.version;
      }
      this.loaded = true;
    } catch (error) {
      emit({ type: 'store-failed', operation: 'getDocument', error: describeError(error) });
    }
  }

  /** True when a stored document is still the version held here (only stores that can tell cheaply). */
  private async unchanged(namespace: string, version: number): Promise<boolean> {
    const { store } = this.engine.options;
    if (!this.loaded || !store.documentVersion) return false;
    return (await store.documentVersion(namespace, this.id)) === version;
  }

  private async persistState(emit: (e: BatonEvent) => void): Promise<void> {
    if (!this.stateDirty) return;
    const { store } = this.engine.options;
    try {
      let put = await store.putDocument(STATE_NAMESPACE, this.id, this.state, this.stateVersion);
      // This session's view is the newest: another writer's flags are superseded.
      if (!put.ok) put = await store.putDocument(STATE_NAMESPACE, this.id, this.state, put.currentVersion);
      if (put.ok) {
        this.stateVersion = put.version;
        this.stateDirty = false;
      }
    } catch (error) {
      emit({ type: 'store-failed', operation: 'putState', error: describeError(error) });
    }
  }

  private async archiveOrphans(orphaned: readonly Entry[], emit: (e: BatonEvent) => void): Promise<void> {
    const fresh = orphaned.filter((e) => !this.archivedOrphans.has(e.key));
    if (fresh.length === 0) return;
    try {
      await this.engine.options.store.appendArchive(
        this.id,
        fresh.map((entry) => ({
          ref: entry.key,
          seq: entry.seq,
          entry,
          stage: 'repair',
          archivedAt: Date.now(),
        })),
      );
      for (const entry of fresh) this.archivedOrphans.add(entry.key);
    } catch (error) {
      emit({ type: 'store-failed', operation: 'appendArchive', error: describeError(error) });
    }
  }
}

import { createAgentTools, type NeutralTool } from './agent-tools.ts';
import { type ArchiveApi, archiveApi } from './archive.ts';
import { PromptMeasure } from './budget.ts';
import { SessionCalibration } from './calibration.ts';
import { SessionBudget } from './call-budget.ts';
import { type Checkpoint, checkpointSession, readCheckpoint, unfitReason } from './checkpoint.ts';
import { backstopReached, minGain, nextWarning, planCompaction } from './controller.ts';
import type { BaseEngine } from './engine.ts';
import { checkPrepareInput } from './entry-check.ts';
import { describeError } from './errors.ts';
import type { BatonEvent, BatonEventBody } from './events.ts';
import { type FloorHolders, floorHolders, floorNotice } from './floor.ts';
import { type PinPolicy, windowPolicy } from './groups.ts';
import { applyLedger, bindToContent } from './ledger.ts';
import { Notes, type NotesApi, renderNotes } from './notes.ts';
import { HOST_SHOWS_NOTES, noteWritten, placeNotes } from './notes-placement.ts';
import {
  compactionNotices,
  isUnfitStepEntry,
  renderNotices,
  unfitNotice,
  unfitStepMessage,
  warningNotice,
} from './notices.ts';
import { detectContextOverflow } from './overflow.ts';
import { PersistedCounts } from './persisted-counts.ts';
import type { Notice, Prepared, PrepareInput } from './prepared.ts';
import { probeIfDue, probeScheduleOf, recordSelfCompaction, spanSummarizer } from './probe-step.ts';
import { distinctKeys, repairTranscript } from './repair.ts';
import {
  compactionRequest,
  previewCompaction,
  runRequestedLadder,
  tellInstructionOutcome,
} from './requested-compaction.ts';
import { SessionRecord } from './session-record.ts';
import type { Entry } from './transcript.ts';

/** An overflow retry aims this much lower than targetAt. */
const OVERFLOW_TIGHTEN = 0.7;

/** Key of the latest host user message: what a floor is valid for. */
function latestRequestKey(entries: readonly Entry[]): string | undefined {
  return entries.findLast((entry) => entry.role === 'user' && entry.meta?.synthetic === undefined)?.key;
}

function joinBlocks(...blocks: string[]): string {
  return blocks.filter((b) => b.length > 0).join('\n\n');
}

/**
 * One conversation's context manager. `prepare` runs before every model call: it repairs the
 * transcript, re-applies the persisted ledger, measures, runs the ladder when over
 * `compactAt` (or when the agent asked), archives what it evicts before returning, persists
 * its decisions, and places the agent's notes (in the cached prefix, re-rendered only at a
 * compaction) and this step's notices (after the conversation). It never throws for
 * summarizer, stage or store failures (they become events).
 */
export class Session {
  readonly id: string;
  /** The `provider-compaction-configured` event went out (once per session and process). */
  private toldProviderCompaction = false;
  readonly archive: ArchiveApi;
  readonly notes: NotesApi;
  /** The agent tools (notes, compact, recall) in neutral form; adapters expose them in host idiom. */
  readonly tools: NeutralTool[];
  private readonly base: BaseEngine;
  private readonly budget: SessionBudget; // each call's options, for the model it goes to
  private readonly record: SessionRecord;
  private readonly notesStore: Notes;
  private readonly counts: PersistedCounts;
  private readonly calibration: SessionCalibration;
  /** The last request's uncalibrated and calibrated size (what usage reports calibrate against). */
  private lastRawTotal = 0;
  /** The last projection and its size: what the compact tool's answer previews. */
  private lastView: { entries: Entry[]; pinPolicy: PinPolicy; tokens: number } | undefined;

  constructor(id: string, base: BaseEngine) {
    this.id = id;
    this.base = base;
    this.budget = new SessionBudget(base);
    const { options, counter } = base;
    this.record = new SessionRecord(id, options.store, options.now);
    this.archive = archiveApi(options.store, id);
    this.counts = new PersistedCounts(options.store, id, counter);
    this.calibration = new SessionCalibration(counter, base.calibrationSeed);
    const cap = () => this.budget.notesCap();
    this.notesStore = new Notes(
      options.notes,
      id,
      cap,
      (text) => this.calibration.counter.text(text),
      options.random,
    );
    this.notes = this.notesStore;
    this.tools = createAgentTools({
      notes: this.notes,
      archive: this.archive,
      requestCompaction: (instruction, checkpoint) => this.requestCompactionDurably(instruction, checkpoint),
      noteWritten: (before, after) => this.recordNoteWritten(before, after),
      compactionPreview: () => previewCompaction(this.lastView, this.budget.engine, this.calibration.counter),
      recallLimit: () => this.budget.recallLimit(),
    });
  }

  /** The compact tool's path: the request is stored at once, so another worker's next call honours it. */
  private async requestCompactionDurably(instruction?: string, checkpoint?: string): Promise<void> {
    const quiet = () => undefined;
    await this.record.load(quiet);
    this.requestCompaction(instruction, checkpoint);
    if (this.record.loaded) await this.record.persistState(quiet);
  }

  /** The notes tool's path: what the agent now knows of its notes is stored, for whichever worker makes the next call. */
  private async recordNoteWritten(before: string, after: string): Promise<void> {
    const quiet = () => undefined;
    await this.record.load(quiet);
    if (!noteWritten(this.record.state, before, after)) return;
    this.record.touch();
    if (this.record.loaded) await this.record.persistState(quiet);
  }

  /** Asks for a compaction before the next model call, summarised to `instruction` (or else replaced by `checkpoint`). */
  requestCompaction(instruction?: string, checkpoint?: string): void {
    this.record.state.pendingCompaction = compactionRequest(instruction, checkpoint);
    this.record.touch();
  }

  /** Feeds the provider's reported input tokens of the last call into the calibration. */
  observeUsage(usage: { inputTokens: number }): void {
    // This session's own ratio (see calibration.ts), persisted with the next call's state write.
    this.calibration.observe(this.record, this.lastRawTotal, usage.inputTokens);
    if (this.record.state.overflowStreak !== 0) {
      this.record.state.overflowStreak = 0;
      this.record.touch();
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
    const { record } = this;
    const quiet = () => undefined;
    record.state.overflowStreak++;
    record.touch();
    if (report.tokens !== undefined) this.calibration.observe(record, this.lastRawTotal, report.tokens);
    if (record.state.overflowStreak >= 2) {
      const reason = `the provider rejected the request as too long twice in a row (${report.message})`;
      const tokens = report.tokens ?? this.lastView?.tokens ?? 0;
      const checkpointRef = await checkpointSession(
        this.budget.engine,
        record,
        this.notesStore,
        { reason, tokens },
        quiet,
      );
      record.state.unfit = { reason, checkpointRef, tokens, budget: this.budget.engine.options.inputBudget };
      record.state.overflowStreak = 0;
      await record.persistState(quiet);
      return 'unfit';
    }
    record.state.pendingCompaction = { ...record.state.pendingCompaction, tighten: OVERFLOW_TIGHTEN };
    await record.persistState(quiet);
    return 'retry';
  }

  /** The latest `unfit` outcome (reason, checkpoint), until the next call has told the agent about it. */
  get unfit(): { reason: string; checkpointRef: string; tokens: number } | undefined {
    const unfit = this.record.state.unfit;
    return unfit
      ? { reason: unfit.reason, checkpointRef: unfit.checkpointRef, tokens: unfit.tokens }
      : undefined;
  }

  /**
   * Archives entries the host itself stopped sending (a window over the history, such as
   * Mastra's `lastMessages`), so `recall` still reaches them. Once per key; a store failure
   * becomes a `store-failed` event.
   */
  async archiveDropped(entries: readonly Entry[]): Promise<void> {
    const emit = (event: BatonEventBody) => this.notify({ ...event, sessionId: this.id });
    await this.record.archiveOutside(
      entries.filter((entry) => entry.meta?.synthetic === undefined && entry.role !== 'system'),
      'host-window',
      emit,
    );
  }

  /** Reads a checkpoint written by an `unfit` outcome. */
  readCheckpoint(ref: string): Promise<Checkpoint | undefined> {
    return readCheckpoint(this.base.options.store, this.id, ref);
  }

  /** Hands an event to the host's listener; a listener's failure is the listener's, the call goes on. */
  private notify(event: BatonEvent): void {
    try {
      this.base.options.onEvent?.(event);
    } catch {
      // Swallowed on purpose: events are reports, never control flow.
    }
  }

  /** The data flow of DESIGN.md, once per model call. */
  async prepare(input: PrepareInput): Promise<Prepared> {
    // Malformed host input is refused before the session loads or writes anything.
    checkPrepareInput(input);
    const { record } = this;
    const events: BatonEvent[] = [];
    const emit = (body: BatonEventBody) => {
      const event = { ...body, sessionId: this.id };
      events.push(event);
      this.notify(event);
    };
    // The window, reserve and prices of the model this call goes to (call-budget.ts).
    const callEngine = this.budget.forCall(input, emit);
    const { options } = callEngine;
    await Promise.all([record.load(emit), this.counts.load(emit), this.base.calibrationSeed.load(emit)]);
    // This session's calibration for this model; probes, summaries and checkpoints count with it too.
    const counter = this.calibration.counterFor(record, input.modelId ?? options.model);
    const engine = { ...callEngine, counter };
    if (input.providerCompaction && !this.toldProviderCompaction) {
      this.toldProviderCompaction = true;
      emit({ type: 'provider-compaction-configured', setting: input.providerCompaction });
    }

    // Host entries -> a transcript the provider accepts (orphans archived, missing results answered).
    // An unfit step's reply a host stored never goes back to the model: the unfit notice tells it.
    const repaired = repairTranscript(distinctKeys(input.entries.filter((e) => !isUnfitStepEntry(e))));
    if (repaired.orphaned.length > 0 || repaired.missingResults > 0) {
      await record.archiveOutside(repaired.orphaned, 'repair', emit);
      emit({
        type: 'transcript-repaired',
        orphanResults: repaired.orphanResults,
        missingResults: repaired.missingResults,
        refs: repaired.orphaned.map((e) => e.key),
      });
    }

    // A host window (Mastra's lastMessages) slides past the opening request (see windowPolicy).
    const opening = input.window ? windowPolicy(engine.pinPolicy, record.state, repaired.entries) : undefined;
    if (opening?.stateChanged) record.touch();
    const pinPolicy = opening?.policy ?? engine.pinPolicy;

    // The last call's unfit outcome is told once, on this call.
    const notices: Notice[] = [];
    if (record.state.unfit) {
      const { reason, checkpointRef, tokens, budget } = record.state.unfit;
      notices.push(unfitNotice(reason, checkpointRef, tokens, budget));
      delete record.state.unfit;
      record.touch();
    }

    // The notes: in the cached prefix as the last compaction rendered them; a change made
    // elsewhere since is a trailing notice (see notes-placement.ts).
    const host = input.system ?? '';
    const currentNotes = input.renderNotes === false ? HOST_SHOWS_NOTES : await this.renderedNotes(emit);
    let notes = placeNotes(record.state, currentNotes, false);
    if (notes.stateChanged) record.touch();
    // The notices so far, the notes change included: what the trailer holds if nothing else is added.
    const trailerSoFar = () => renderNotices(notes.notice ? [...notices, notes.notice] : notices);

    // The ledger re-applied, then measured with the system prompt, the notes, the tools and the notices.
    let projection = applyLedger(repaired.entries, record.ledger.decisions);
    const measure = new PromptMeasure(counter, input.tools, projection, this.calibration.model);
    const before = measure.tokens(joinBlocks(host, notes.block), trailerSoFar());
    const budget = options.inputBudget;
    let outcome: 'ok' | 'compacted' = 'ok';

    // The controller: a stored request (agent, overflow), the backstop, or a probe's COMPRESS.
    // The probe schedule counts model calls; it is kept (and persisted) only with probes on.
    const schedule = options.selfCompact ? probeScheduleOf(record.state) : undefined;
    if (schedule) {
      schedule.steps++;
      record.touch();
    }
    // A prepare that is not an overflow's retry comes after a call that went through (or on a
    // new turn): the next overflow is a first one again, whether or not the provider reported usage.
    if (record.state.pendingCompaction?.tighten === undefined && record.state.overflowStreak !== 0) {
      record.state.overflowStreak = 0;
      record.touch();
    }
    let request = record.state.pendingCompaction;
    if (request) {
      delete record.state.pendingCompaction;
      record.touch();
    }
    // Below the backstop, a probe may choose this moment: the model judges its own trajectory.
    let early = false;
    if (!request && options.selfCompact && schedule && !backstopReached(before, options)) {
      const system = joinBlocks(host, notes.block);
      const context = { tokens: before, entries: projection, system, model: input.model };
      if ((await probeIfDue(engine, options.selfCompact, schedule, context, emit)) === 'COMPRESS') {
        request = { instruction: options.selfCompact.rubric.summaryInstruction };
        early = true;
      }
    }
    // A floor holds for the turn it was found in: a new user message makes the last turn evictable.
    const turn = latestRequestKey(repaired.entries);
    const floor = record.state.floor?.turn === turn ? record.state.floor?.tokens : undefined;
    const plan = planCompaction(before, request, early, options, floor);

    // The ladder, budget-gated; its evictions archived before the ledger keeps them.
    if (plan.run) {
      // A compaction re-renders the notes block, so the ladder sizes against the notes as they are now.
      const overhead = measure.overhead(joinBlocks(host, currentNotes ?? notes.block));
      const result = await runRequestedLadder({
        // The agent's instruction shapes a summary even when folding alone would reach the target.
        request: early ? undefined : request,
        entries: projection,
        // A probe's COMPRESS condenses the whole closed unit: the summarize stage alone.
        stages: early ? engine.summarizeStages : engine.stages,
        overhead,
        target: plan.target,
        budget,
        truncateLimit: plan.truncateLimit,
        instruction: request?.instruction,
        options,
        pinPolicy,
        count: (entry) => counter.count(entry),
        summarize: spanSummarizer(engine, input.model, (text) => measure.text(text), request?.instruction),
        noticeTokens: (spans) =>
          spans.length === 0 ? 0 : measure.text(renderNotices(compactionNotices(spans, before, budget))) + 8,
        emit,
      });
      bindToContent(result.decisions, repaired.entries);
      // The backstop's own compactions must repay the cache write they cause. Requested ones
      // (the agent chose the moment) are not gated, nor a prompt that would not fit the budget
      // uncompacted with the notices this call may add (the floor's, a warning).
      const floorTold =
        request === undefined ? this.floorNotice(result, plan.target, overhead, pinPolicy) : undefined;
      const noticeRoom =
        (floorTold ? measure.text(floorTold.text) : 0) +
        measure.text(warningNotice(before, budget, options.compactAt * budget).text);
      const gated = request === undefined && before + noticeRoom <= budget;
      const repays = before - result.tokens >= minGain(options);
      if (early && result.summaryFailed) {
        // An optional compaction whose summary failed is not worth a half-done context change.
        emit({
          type: 'self-compaction-abandoned',
          step: schedule?.steps ?? 0,
          reason: 'the continuation summary failed',
        });
      } else if (gated && !repays) {
        emit({
          type: 'compaction-skipped',
          tokensBefore: before,
          floor: result.tokens,
          minGain: minGain(options),
        });
      } else if (result.decisions.length > 0 && (await record.commit(result.decisions, result.spans, emit))) {
        projection = result.entries;
        measure.setProjection(projection);
        outcome = 'compacted';
        notices.push(...compactionNotices(result.spans, before - result.tokens, budget));
        tellInstructionOutcome(notices, result);
        if (schedule) recordSelfCompaction(engine, schedule, { early, before, result }, emit);
      }
      if (request === undefined) {
        this.recordFloor(result.tokens, plan.target, turn);
        if (floorTold) {
          notices.push({ type: floorTold.type, text: floorTold.text, facts: floorTold.facts });
          emit({
            type: 'compaction-floor',
            tokens: result.tokens,
            target: plan.target,
            holders: floorTold.holders,
          });
        }
      }
    }
    if (outcome === 'compacted') {
      notes = placeNotes(record.state, currentNotes, true);
      if (notes.stateChanged) record.touch();
    }
    const system = joinBlocks(host, notes.block);

    // Notices: the warning is decided on what the model reads this step, notices so far included.
    const settled = measure.tokens(system, trailerSoFar());
    const warning = nextWarning(record.state.warned, outcome === 'compacted', settled, options);
    if (warning.show) notices.push(warningNotice(settled, budget, options.compactAt * budget));
    if (warning.warned !== record.state.warned) {
      record.state.warned = warning.warned;
      record.touch();
    }
    if (notes.notice) notices.push(notes.notice);

    // Over the budget even so: unfit, with a durable checkpoint, never an exception.
    const trailer = renderNotices(notices);
    const raw = measure.raw(system, trailer);
    const after = counter.scale(raw);
    const changed =
      projection.length !== input.entries.length || projection.some((entry, i) => entry !== input.entries[i]);
    for (const notice of notices) emit({ type: 'notice-shown', notice: notice.facts });
    const common = { entries: projection, system, block: notes.block, trailer, changed, notices, events };
    let prepared: Prepared = { ...common, outcome, tokens: { before, after, budget } };
    if (after > budget) {
      const reason = unfitReason(engine, projection, system, budget);
      emit({ type: 'budget-exceeded', tokens: after, budget, reason });
      const checkpointRef = await checkpointSession(
        engine,
        record,
        this.notesStore,
        { reason, tokens: after },
        emit,
      );
      record.state.unfit = { reason, checkpointRef, tokens: after, budget };
      record.touch();
      const message = unfitStepMessage({ reason, checkpointRef });
      prepared = {
        ...common,
        outcome: 'unfit',
        tokens: { before, after, budget },
        reason,
        checkpointRef,
        message,
      };
    }
    if (options.outputCap !== undefined) prepared.maxOutputTokens = options.outputCap;
    await record.persistState(emit);
    await Promise.all([this.counts.save(projection, emit), engine.calibrationSeed.save(emit)]);
    this.lastRawTotal = raw;
    this.lastView = { entries: projection, pinPolicy, tokens: after };
    return prepared;
  }

  /**
   * The notice of a floor a backstop compaction found (the lowest prompt its ladder reached,
   * above target), with what holds it; undefined when there is none or the agent was told.
   */
  private floorNotice(
    result: { entries: Entry[]; tokens: number },
    target: number,
    overhead: number,
    pinPolicy: PinPolicy,
  ): (Notice & { holders: FloorHolders }) | undefined {
    const { options } = this.budget.engine;
    const { counter } = this.calibration;
    if (result.tokens <= target || this.record.state.floor?.told) return undefined;
    const holders = floorHolders(result.entries, overhead, (entry) => counter.count(entry), pinPolicy);
    const notice = floorNotice(result.tokens, target, holders, {
      grownBy: minGain(options),
      truncateAt: options.truncateAt * options.inputBudget,
    });
    return { ...notice, holders };
  }

  /**
   * Keeps the floor so the next calls of this turn do not run the ladder again for nothing
   * (told once per episode); a compaction that reached its target ends the episode.
   */
  private recordFloor(tokens: number, target: number, turn: string | undefined): void {
    const { record } = this;
    if (tokens <= target) {
      if (record.state.floor) {
        delete record.state.floor;
        record.touch();
      }
      return;
    }
    record.state.floor = { tokens, told: true, ...(turn === undefined ? {} : { turn }) };
    record.touch();
  }

  /** The notes rendered now; undefined when they could not be read (the block stays as it was). */
  private async renderedNotes(emit: (e: BatonEventBody) => void): Promise<string | undefined> {
    try {
      // Re-read every call: notes written by another worker, or by the host's own memory tool
      // (Mastra's working memory), are in this call's prompt, not a stale copy.
      await this.notesStore.refresh();
      return renderNotes(await this.notesStore.sections());
    } catch (error) {
      emit({ type: 'store-failed', operation: 'readNotes', error: describeError(error) });
      return undefined;
    }
  }
}

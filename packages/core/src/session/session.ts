import { createAgentTools, type NeutralTool } from '../agent/agent-tools.ts';
import { Notes, type NotesApi, renderedNotes } from '../agent/notes.ts';
import { HOST_SHOWS_NOTES, noteWritten, placeNotes } from '../agent/notes-placement.ts';
import { addedNoticeTokens, renderNotices, takeUnfitNotice, warningStep } from '../agent/notices.ts';
import { PromptMeasure } from '../budget/budget.ts';
import { SessionBudget } from '../budget/call-budget.ts';
import type { BaseEngine } from '../budget/engine.ts';
import type { BatonEvent, BatonEventBody } from '../contracts/events.ts';
import type { Notice, Prepared, PrepareInput } from '../contracts/prepared.ts';
import { accrueRent, cachePrices, rentDue } from '../controller/cache-rent.ts';
import { planCompaction } from '../controller/controller.ts';
import { floorOfTurn, latestRequestKey } from '../controller/floor.ts';
import {
  compactionRequest,
  previewCompaction,
  takePendingRequest,
} from '../controller/requested-compaction.ts';
import { KeptProjection } from '../ledger/kept-projection.ts';
import { cacheRulesFor } from '../pricing/cache-rules.ts';
import { detectContextOverflow } from '../provider/overflow.ts';
import { type ArchiveApi, archiveApi } from '../stores/archive.ts';
import { SessionCalibration } from '../tokens/calibration.ts';
import { PersistedCounts } from '../tokens/persisted-counts.ts';
import { type PinPolicy, windowPolicy } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';
import { SeenPrefix } from '../util/seen-prefix.ts';
import { type Checkpoint, readCheckpoint, recordUnfit, unfitOutcome } from './checkpoint.ts';
import { compactionStep } from './compaction-step.ts';
import { checkPrepareInput } from './entry-check.ts';
import { countProbeStep, probeRequest } from './probe-step.ts';
import { repairInput, SoundHistory } from './repair.ts';
import { SessionRecord } from './session-record.ts';

/** An overflow retry aims this much lower than targetAt. */
const OVERFLOW_TIGHTEN = 0.7;

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
  /**
   * What the whole-history passes saw at the last call (input check, repair, ledger): the next
   * call, the same history plus new messages, passes over its new messages only.
   */
  private readonly checked = new SeenPrefix();
  private readonly sound = new SoundHistory();
  private readonly kept = new KeptProjection();

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
      const budget = this.budget.engine.options.inputBudget;
      await recordUnfit(this.budget.engine, record, this.notesStore, { reason, tokens, budget }, quiet);
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
    checkPrepareInput(input, this.checked);
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
    const modelId = input.modelId ?? options.model;
    const counter = this.calibration.counterFor(record, modelId);
    const engine = { ...callEngine, counter };
    if (input.providerCompaction && !this.toldProviderCompaction) {
      this.toldProviderCompaction = true;
      emit({ type: 'provider-compaction-configured', setting: input.providerCompaction });
    }

    // Host entries -> a transcript the provider accepts (orphans archived, missing results answered).
    const entries = await repairInput(input.entries, record, emit, this.sound);

    // A host window (Mastra's lastMessages) slides past the opening request (see windowPolicy).
    const opening = input.window ? windowPolicy(engine.pinPolicy, record.state, entries) : undefined;
    if (opening?.stateChanged) record.touch();
    const pinPolicy = opening?.policy ?? engine.pinPolicy;

    // The last call's unfit outcome is told once, on this call.
    const unfitTold = takeUnfitNotice(record.state);
    if (unfitTold) record.touch();
    const notices: Notice[] = unfitTold ? [unfitTold] : [];

    // The notes: in the cached prefix as the last compaction rendered them; a change made
    // elsewhere since is a trailing notice (see notes-placement.ts).
    const host = input.system ?? '';
    const currentNotes =
      input.renderNotes === false ? HOST_SHOWS_NOTES : await renderedNotes(this.notesStore, emit);
    let notes = placeNotes(record.state, currentNotes, false);
    if (notes.stateChanged) record.touch();
    // The notices so far, the notes change included: what the trailer holds if nothing else is added.
    const trailerSoFar = () => renderNotices(notes.notice ? [...notices, notes.notice] : notices);

    // The ledger re-applied, then measured with the system prompt, the notes, the tools and the notices.
    let projection = this.kept.apply(entries, record.ledger.decisions);
    const measure = new PromptMeasure(counter, input.tools, projection, this.calibration.model);
    const before = measure.tokens(joinBlocks(host, notes.block), trailerSoFar());
    const budget = options.inputBudget;
    let outcome: 'ok' | 'compacted' = 'ok';

    // The controller: a stored request (agent, overflow), the backstop, or a probe's COMPRESS.
    // The probe schedule counts model calls; it is kept (and persisted) only with probes on.
    const schedule = countProbeStep(engine, record.state);
    if (schedule) record.touch();
    const pending = takePendingRequest(record.state);
    if (pending.changed) record.touch();
    const context = {
      tokens: before,
      entries: projection,
      system: joinBlocks(host, notes.block),
      model: input.model,
    };
    const probed = pending.request ? undefined : await probeRequest(engine, schedule, context, emit);
    const request = pending.request ?? probed;
    const early = probed !== undefined;
    // A floor holds for the turn it was found in: a new user message makes the last turn evictable.
    const turn = latestRequestKey(entries);
    const floor = floorOfTurn(record.state, turn);
    // Once it compacted, the session also compacts when the cache reads since have paid for it.
    const prices = cachePrices(options.pricing, modelId === undefined ? undefined : cacheRulesFor(modelId));
    const rent = record.state.sinceCompaction;
    // What makes this call a new step of the run (rent is paid by steps, not by retries).
    const newest = entries.at(-1)?.key;
    const since = { compacted: rent !== undefined, rentDue: rentDue(rent, before, prices, options, newest) };
    const plan = planCompaction(before, request, early, options, floor, since);

    // The ladder, budget-gated; its evictions archived before the ledger keeps them.
    if (plan.run) {
      // A compaction re-renders the notes block, so the ladder sizes against the notes as they are now.
      const overhead = measure.overhead(joinBlocks(host, currentNotes ?? notes.block));
      const compacted = await compactionStep({
        engine,
        record,
        measure,
        model: input.model,
        entries,
        projection,
        request,
        early,
        plan,
        before,
        overhead,
        pinPolicy,
        schedule,
        turn,
        current: () => ({ options: this.budget.engine.options, counter: this.calibration.counter }),
        notices,
        emit,
      });
      if (compacted) {
        projection = compacted;
        outcome = 'compacted';
      }
    }
    if (outcome === 'compacted') {
      notes = placeNotes(record.state, currentNotes, true);
      if (notes.stateChanged) record.touch();
    }
    const system = joinBlocks(host, notes.block);

    // Notices: the warning is decided on what the model reads this step, notices so far included.
    const settled = measure.tokens(system, trailerSoFar());
    const shownSoFar = notes.notice ? [...notices, notes.notice] : notices;
    const fits = (notice: Notice) =>
      settled + addedNoticeTokens((text) => measure.text(text), shownSoFar, [notice]) <= budget;
    const warning = warningStep(record.state, outcome === 'compacted', settled, options, fits);
    if (warning.notice) notices.push(warning.notice);
    if (warning.changed) record.touch();
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
      const prompt = { entries: projection, tokens: after, trailer };
      const unfit = await unfitOutcome(engine, record, this.notesStore, prompt, emit);
      prepared = { ...common, outcome: 'unfit', tokens: { before, after, budget }, ...unfit };
    }
    if (options.outputCap !== undefined) prepared.maxOutputTokens = options.outputCap;
    if (accrueRent(record.state, prepared.outcome, after, prices, newest)) record.touch();
    await record.persistState(emit);
    await Promise.all([this.counts.save(projection, emit), engine.calibrationSeed.save(emit)]);
    this.lastRawTotal = raw;
    this.lastView = { entries: projection, pinPolicy, tokens: after };
    return prepared;
  }
}

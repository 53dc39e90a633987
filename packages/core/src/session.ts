import { type ArchiveApi, archiveApi } from './archive.ts';
import { describeError } from './errors.ts';
import type { BatonEvent } from './events.ts';
import type { PinPolicy } from './groups.ts';
import { runLadder } from './ladder.ts';
import { applyLedger, type Decision, type Ledger } from './ledger.ts';
import type { ResolvedOptions } from './options.ts';
import { repairTranscript } from './repair.ts';
import type { Stage } from './stage.ts';
import type { ArchiveRecord } from './store.ts';
import { boundedSummarize } from './summarizers/bounded.ts';
import { PER_REQUEST, type TokenCounter, type ToolSchema } from './token-counter.ts';
import type { Entry } from './transcript.ts';

export interface PrepareInput {
  /** The host's full history, converted (`fromOpenAIChat` or an adapter). */
  entries: readonly Entry[];
  /** System prompt sent with the request (counted; notes are rendered into it). */
  system?: string;
  /** Tools offered to the model (their schemas are counted). */
  tools?: readonly ToolSchema[];
}

/** Something the agent should read before its next step. */
export interface Notice {
  type: 'warning' | 'eviction' | 'degrade' | 'unfit';
  text: string;
}

export type Outcome = 'ok' | 'compacted' | 'unfit';

/** What `prepare` returns: the projection to send, and what happened. */
export interface Prepared {
  /** The projection: what the model should see this call. */
  entries: Entry[];
  /** The system prompt to send. */
  system: string;
  notices: Notice[];
  outcome: Outcome;
  tokens: { before: number; after: number; budget: number };
  events: BatonEvent[];
  checkpointRef?: string;
}

/** Shared by all sessions of one `createBaton` call. */
export interface Engine {
  options: ResolvedOptions;
  counter: TokenCounter;
  stages: readonly Stage[];
  pinPolicy: PinPolicy;
  summaryMemo: Map<string, string>;
}

const LEDGER_NAMESPACE = 'baton/ledger';

function archiveRecords(
  evicted: ReadonlyArray<{ entry: Entry; stage: string }>,
  now: number,
): ArchiveRecord[] {
  return evicted.map(({ entry, stage }) => ({
    ref: entry.key,
    seq: entry.seq,
    entry,
    stage,
    archivedAt: now,
  }));
}

/**
 * One conversation's context manager. `prepare` runs before every model call: it repairs the
 * transcript, re-applies the persisted ledger, measures, runs the ladder when over
 * `compactAt`, archives what it evicts before returning, and persists its decisions.
 * It never throws for summarizer, stage or store failures (they become events).
 */
export class Session {
  readonly archive: ArchiveApi;
  private ledger: Ledger = { decisions: [] };
  private ledgerVersion = 0;
  private ledgerLoaded = false;
  private lastRawTotal = 0;
  private pendingCompaction: { instruction: string | undefined } | undefined;
  private readonly archivedOrphans = new Set<string>();

  constructor(
    readonly id: string,
    private readonly engine: Engine,
  ) {
    this.archive = archiveApi(engine.options.store, id);
  }

  /** Asks for a compaction down to `targetAt` before the next model call, guided by `instruction`. */
  requestCompaction(instruction?: string): void {
    this.pendingCompaction = { instruction };
  }

  /** Feeds the provider's reported input tokens of the last call into the calibration. */
  observeUsage(usage: { inputTokens: number }): void {
    this.engine.counter.calibrate(this.lastRawTotal, usage.inputTokens);
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
    await this.loadLedger(emit);

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

    const system = input.system ?? '';
    const overheadRaw = counter.rawText(system) + counter.rawTools(input.tools) + PER_REQUEST;
    let projection = applyLedger(repaired.entries, this.ledger.decisions);
    const measure = (entries: readonly Entry[]) => {
      let raw = overheadRaw;
      for (const entry of entries) raw += counter.raw(entry);
      return raw;
    };
    let raw = measure(projection);
    const before = counter.scale(raw);
    let after = before;
    const budget = options.inputBudget;
    let outcome: Outcome = 'ok';

    const forced = this.pendingCompaction;
    this.pendingCompaction = undefined;
    if (before > options.compactAt * budget || (forced && before > options.targetAt * budget)) {
      const result = await runLadder({
        entries: projection,
        stages: this.engine.stages,
        overhead: counter.scale(overheadRaw),
        target: options.targetAt * budget,
        budget,
        truncateLimit: options.truncateAt * budget,
        instruction: forced?.instruction,
        options,
        pinPolicy: this.engine.pinPolicy,
        count: (entry) => counter.count(entry),
        summarize: (entries, priorSummary) =>
          boundedSummarize(
            {
              summarizer: options.summarizer,
              countEntry: (entry) => counter.count(entry),
              countText: (text) => counter.scale(counter.rawText(text)),
              maxInputTokens: options.maxSummaryInputTokens,
              maxTokens: options.maxSummaryTokens,
              memo: this.engine.summaryMemo,
            },
            entries,
            forced?.instruction,
            priorSummary,
          ),
        emit,
      });
      if (result.decisions.length > 0 && (await this.commit(result.decisions, result.evicted, emit))) {
        projection = result.entries;
        raw = measure(projection);
        after = counter.scale(raw);
        outcome = 'compacted';
      }
    }
    if (after > budget) {
      outcome = 'unfit';
      emit({
        type: 'budget-exceeded',
        tokens: after,
        budget,
        reason: 'protected content (system, requests, pinned tools, newest step) exceeds the input budget',
      });
    }
    this.lastRawTotal = raw;
    return { entries: projection, system, notices: [], outcome, tokens: { before, after, budget }, events };
  }

  /**
   * Write-ahead: the evicted entries reach the archive before the decisions that evict them
   * are kept. If the archive cannot be written the decisions are dropped (nothing is evicted
   * that could not be recalled). A ledger that cannot be persisted stays in memory.
   */
  private async commit(
    decisions: Decision[],
    evicted: ReadonlyArray<{ entry: Entry; stage: string }>,
    emit: (e: BatonEvent) => void,
  ): Promise<boolean> {
    const { store } = this.engine.options;
    try {
      if (evicted.length > 0) await store.appendArchive(this.id, archiveRecords(evicted, Date.now()));
    } catch (error) {
      emit({ type: 'store-failed', operation: 'appendArchive', error: describeError(error) });
      return false;
    }
    let next: Ledger = { decisions: [...this.ledger.decisions, ...decisions] };
    try {
      let put = await store.putDocument(LEDGER_NAMESPACE, this.id, next, this.ledgerVersion);
      if (!put.ok) {
        emit({
          type: 'ledger-conflict',
          expectedVersion: this.ledgerVersion,
          currentVersion: put.currentVersion,
        });
        const current = await store.getDocument<Ledger>(LEDGER_NAMESPACE, this.id);
        next = { decisions: [...(current?.value.decisions ?? []), ...decisions] };
        put = await store.putDocument(LEDGER_NAMESPACE, this.id, next, current?.version ?? 0);
      }
      if (put.ok) this.ledgerVersion = put.version;
      else
        emit({
          type: 'store-failed',
          operation: 'putDocument',
          error: 'ledger changed twice during one compaction',
        });
    } catch (error) {
      emit({ type: 'store-failed', operation: 'putDocument', error: describeError(error) });
    }
    this.ledger = next;
    return true;
  }

  private async loadLedger(emit: (e: BatonEvent) => void): Promise<void> {
    if (this.ledgerLoaded) return;
    try {
      const stored = await this.engine.options.store.getDocument<Ledger>(LEDGER_NAMESPACE, this.id);
      if (stored) {
        this.ledger = stored.value;
        this.ledgerVersion = stored.version;
      }
      this.ledgerLoaded = true;
    } catch (error) {
      emit({ type: 'store-failed', operation: 'getDocument', error: describeError(error) });
    }
  }

  private async archiveOrphans(orphaned: readonly Entry[], emit: (e: BatonEvent) => void): Promise<void> {
    const fresh = orphaned.filter((e) => !this.archivedOrphans.has(e.key));
    if (fresh.length === 0) return;
    try {
      await this.engine.options.store.appendArchive(
        this.id,
        archiveRecords(
          fresh.map((entry) => ({ entry, stage: 'repair' })),
          Date.now(),
        ),
      );
      for (const entry of fresh) this.archivedOrphans.add(entry.key);
    } catch (error) {
      emit({ type: 'store-failed', operation: 'appendArchive', error: describeError(error) });
    }
  }
}

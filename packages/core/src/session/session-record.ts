import type { BatonEventBody } from '../contracts/events.ts';
import type { EvictedSpan } from '../contracts/prepared.ts';
import { initialState, type SessionState, STATE_NAMESPACE } from '../contracts/session-state.ts';
import type { ArchiveRecord, Store } from '../contracts/store.ts';
import { ledgerProblem } from '../ledger/decision-shape.ts';
import { type Decision, type Ledger, withoutSuperseded } from '../ledger/ledger.ts';
import type { Entry } from '../transcript/transcript.ts';
import { describeError } from '../util/errors.ts';

const LEDGER_NAMESPACE = 'baton/ledger';
/** Compare-and-set rounds for one ledger commit before giving up (then it stays in memory). */
const LEDGER_ATTEMPTS = 8;

type Emit = (event: BatonEventBody) => void;

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

/**
 * What one session keeps in the store, and the versions it last saw: the ledger (decisions,
 * compare-and-set, merged on conflict), the session state (warning, pending compaction,
 * unfit, probe schedule), and the archive writes that must precede any eviction. Every
 * store failure becomes a `store-failed` event; nothing here throws into `prepare`.
 */
export class SessionRecord {
  readonly id: string;
  ledger: Ledger = { decisions: [] };
  ledgerVersion = 0;
  state: SessionState = initialState();
  /** Whether the store has answered a load at least once (else the state is this process's guess). */
  loaded = false;
  private readonly store: Store;
  private readonly now: () => number;
  private stateVersion = 0;
  private stateDirty = false;
  /** Refs this process archived outside a commit (orphans, host-dropped entries): written once. */
  private readonly archivedOutside = new Set<string>();

  constructor(id: string, store: Store, now: () => number) {
    this.id = id;
    this.store = store;
    this.now = now;
  }

  /** Marks the state changed: `persistState` writes it at the end of the call. */
  touch(): void {
    this.stateDirty = true;
  }

  /**
   * Reads the ledger and state before every call: another worker serving this session (or a
   * restarted process) may have committed decisions since, and this projection must apply
   * them too. Unchanged versions keep the parsed copies.
   */
  async load(emit: Emit): Promise<void> {
    const { store } = this;
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
        // A corrupt document (a store bug, a hand edit) is treated as absent, and said so: the
        // next commit replaces it; what it evicted is still in the archive.
        const problem = ledgerProblem(ledger.value);
        if (problem)
          emit({
            type: 'store-failed',
            operation: 'getDocument',
            error: `[baton] [store] ${problem}; ignored`,
          });
        else this.ledger = ledger.value;
        this.ledgerVersion = ledger.version;
      }
      if (state && state.version !== this.stateVersion) {
        // Another worker (or a restart) moved the state: adopt it, keeping a compact request
        // made here and not yet stored.
        const local = this.stateDirty ? this.state.pendingCompaction : undefined;
        const stored: unknown = state.value;
        if (typeof stored === 'object' && stored !== null && !Array.isArray(stored))
          this.state = { ...initialState(), ...stored, ...(local ? { pendingCompaction: local } : {}) };
        else
          emit({
            type: 'store-failed',
            operation: 'getDocument',
            error: `[baton] [store] the stored session state is ${stored === null ? 'null' : typeof stored}; ignored`,
          });
        this.stateVersion = state.version;
      }
      this.loaded = true;
    } catch (error) {
      emit({ type: 'store-failed', operation: 'getDocument', error: describeError(error) });
    }
  }

  /**
   * Write-ahead: the evicted entries reach the archive before the decisions that evict them
   * are kept. If the archive cannot be written the decisions are dropped (nothing is evicted
   * that could not be recalled). A ledger that cannot be persisted stays in memory.
   */
  async commit(decisions: Decision[], spans: readonly EvictedSpan[], emit: Emit): Promise<boolean> {
    const { store } = this;
    try {
      if (spans.length > 0) await store.appendArchive(this.id, archiveRecords(spans, this.now()));
    } catch (error) {
      emit({ type: 'store-failed', operation: 'appendArchive', error: describeError(error) });
      return false;
    }
    let next: Ledger = { decisions: withoutSuperseded([...this.ledger.decisions, ...decisions]) };
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
        next = { decisions: withoutSuperseded([...(current?.value.decisions ?? []), ...decisions]) };
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

  /** Writes the state when it changed; this session's view wins over another writer's flags. */
  async persistState(emit: Emit): Promise<void> {
    if (!this.stateDirty) return;
    const { store } = this;
    try {
      let put = await store.putDocument(STATE_NAMESPACE, this.id, this.state, this.stateVersion);
      if (!put.ok) put = await store.putDocument(STATE_NAMESPACE, this.id, this.state, put.currentVersion);
      if (put.ok) {
        this.stateVersion = put.version;
        this.stateDirty = false;
      }
    } catch (error) {
      emit({ type: 'store-failed', operation: 'putState', error: describeError(error) });
    }
  }

  /** Archives entries that leave the projection outside a commit: orphaned results repair took out, entries the host stopped sending (once per key). */
  async archiveOutside(entries: readonly Entry[], stage: string, emit: Emit): Promise<void> {
    const fresh = entries.filter((e) => !this.archivedOutside.has(e.key));
    if (fresh.length === 0) return;
    try {
      const now = this.now();
      await this.store.appendArchive(
        this.id,
        fresh.map((entry) => ({ ref: entry.key, seq: entry.seq, entry, stage, archivedAt: now })),
      );
      for (const entry of fresh) this.archivedOutside.add(entry.key);
    } catch (error) {
      emit({ type: 'store-failed', operation: 'appendArchive', error: describeError(error) });
    }
  }

  /** True when a stored document is still the version held here (only stores that can tell cheaply). */
  private async unchanged(namespace: string, version: number): Promise<boolean> {
    if (!this.loaded || !this.store.documentVersion) return false;
    return (await this.store.documentVersion(namespace, this.id)) === version;
  }
}

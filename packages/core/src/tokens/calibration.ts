import type { BatonEventBody } from '../contracts/events.ts';
import type { SessionState } from '../contracts/session-state.ts';
import type { Store } from '../contracts/store.ts';
import { describeError } from '../util/errors.ts';
import type { TokenCounter } from './token-counter.ts';

/** Provider-reported / Baton-estimated input tokens, learnt from `observations` reports. */
export interface CalibrationState {
  ratio: number;
  observations: number;
}

type Emit = (event: BatonEventBody) => void;

/** Where a session keeps its calibration: its persisted state (`touch` schedules the write). */
interface StateHolder {
  state: SessionState;
  touch(): void;
}

/** The plausible range of tokenizer drift: a report outside it is clamped, not trusted. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;
/** Models one session keeps a calibration for; a session that used more forgets the oldest. */
const MODELS_KEPT = 8;
const SEED_NAMESPACE = 'baton/calibration';
/** The stored seed is rewritten only when a learnt ratio moved by more than this (not a store write per call). */
const SEED_TOLERANCE = 0.01;
/** Models the process's seed remembers; the one learnt longest ago goes first. */
const SEED_MODELS = 64;

/** Whether `ratio` moved away from what the store holds. */
function moved(stored: number | undefined, ratio: number): boolean {
  return stored === undefined || Math.abs(ratio - stored) > stored * SEED_TOLERANCE;
}

function validRatio(ratio: unknown): number | undefined {
  return typeof ratio === 'number' && Number.isFinite(ratio) && ratio > 0
    ? Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio))
    : undefined;
}

/**
 * One observation folded into a calibration: `reported` input tokens for a request estimated
 * at `estimatedRaw` (uncalibrated). Exponential smoothing (half weight to the newest) damps
 * one-off outliers such as image-heavy requests; the first observation (or the first after a
 * seed, `observations` 0) is taken as it is. Undefined for a report that says nothing.
 *
 * @example
 * smoothed(undefined, 1000, 1200); // { ratio: 1.2, observations: 1 }
 * smoothed({ ratio: 1.2, observations: 1 }, 1000, 1400); // { ratio: 1.3, observations: 2 }
 */
export function smoothed(
  current: CalibrationState | undefined,
  estimatedRaw: number,
  reported: number,
): CalibrationState | undefined {
  if (!(estimatedRaw > 0) || !(reported > 0) || !Number.isFinite(reported)) return undefined;
  const observed = Math.min(MAX_RATIO, Math.max(MIN_RATIO, reported / estimatedRaw));
  const previous = current && current.observations > 0 ? validRatio(current.ratio) : undefined;
  return {
    ratio: previous === undefined ? observed : previous * 0.5 + observed * 0.5,
    observations: (current?.observations ?? 0) + 1,
  };
}

/** The stored seed: the last ratio any session of this process learnt, overall and per model. */
interface SeedDocument {
  rules: string;
  last?: number;
  models?: Record<string, number>;
}

/**
 * What the process has learnt, for sessions that have learnt nothing yet: the newest ratio any
 * session observed, per model and overall. A new session starts from it and then moves only
 * with its own usage. Kept in the store (one small document per counting rules), so the first
 * chat after a restart does not start from 1 again. Read once per process; written after an
 * observation that moved it by more than 1%. Store failures become `store-failed` events.
 */
export class CalibrationSeed {
  private last: number | undefined;
  private readonly models = new Map<string, number>();
  /** What the store holds (as far as this process knows), to write only real moves. */
  private storedLast: number | undefined;
  private storedModels = new Map<string, number>();
  private dirty = false;
  private version = 0;
  private loading: Promise<void> | undefined;
  private saving = false;

  constructor(
    private readonly store: Store,
    /** The tokenizer and counting rules: a ratio learnt under others does not apply. */
    private readonly rules: string,
  ) {}

  /** Reads the stored seed, once per process; what this process learnt meanwhile wins. */
  load(emit: Emit): Promise<void> {
    this.loading ??= this.read(emit);
    return this.loading;
  }

  private async read(emit: Emit): Promise<void> {
    try {
      const stored = await this.store.getDocument<SeedDocument>(SEED_NAMESPACE, this.rules);
      if (!stored) return;
      this.version = stored.version;
      const value: Partial<SeedDocument> = stored.value ?? {};
      if (value.rules !== this.rules) return;
      this.storedLast = validRatio(value.last);
      this.last ??= this.storedLast;
      for (const [model, ratio] of Object.entries(value.models ?? {})) {
        const valid = validRatio(ratio);
        if (valid === undefined) continue;
        this.storedModels.set(model, valid);
        if (!this.models.has(model)) this.models.set(model, valid);
      }
    } catch (error) {
      emit({ type: 'store-failed', operation: 'getCalibration', error: describeError(error) });
    }
  }

  /** The ratio a session with nothing learnt starts from: the model's, else the last one seen. */
  seedFor(model: string | undefined): number | undefined {
    return (model === undefined ? undefined : this.models.get(model)) ?? this.last;
  }

  /** A session learnt `ratio` (for `model`, when known). */
  learn(model: string | undefined, ratio: number): void {
    this.last = ratio;
    if (moved(this.storedLast, ratio)) this.dirty = true;
    if (model === undefined) return;
    this.models.delete(model); // re-inserted as the newest
    this.models.set(model, ratio);
    if (this.models.size > SEED_MODELS) this.models.delete(this.models.keys().next().value as string);
    if (moved(this.storedModels.get(model), ratio)) this.dirty = true;
  }

  /** Writes the seed when it moved; another process writing meanwhile is overwritten (newest wins). */
  async save(emit: Emit): Promise<void> {
    const { last } = this;
    if (last === undefined || !this.dirty || this.saving) return;
    this.saving = true;
    this.dirty = false;
    const models = new Map(this.models);
    const value: SeedDocument = { rules: this.rules, last, models: Object.fromEntries(models) };
    try {
      let put = await this.store.putDocument(SEED_NAMESPACE, this.rules, value, this.version);
      if (!put.ok) put = await this.store.putDocument(SEED_NAMESPACE, this.rules, value, put.currentVersion);
      if (put.ok) {
        this.version = put.version;
        this.storedLast = last;
        this.storedModels = models;
      } else this.dirty = true;
    } catch (error) {
      this.dirty = true; // tried again with the next call
      emit({ type: 'store-failed', operation: 'putCalibration', error: describeError(error) });
    } finally {
      this.saving = false;
    }
  }
}

/**
 * One session's calibration: kept in its state (so it survives a restart and is shared by the
 * workers serving it), per model when the model is known, seeded from the process when the
 * session has learnt nothing for that model, and moved only by this session's own usage
 * reports. One chat full of tool JSON and another with a pasted document tokenize differently
 * against the provider's count: a shared ratio under-counts one of them.
 */
export class SessionCalibration {
  /** Exact counts times this session's ratio, as of the last `counterFor`. */
  counter: TokenCounter;
  /** The model of the last `counterFor`: what the next usage report is about. */
  model: string | undefined;

  constructor(
    private readonly shared: TokenCounter,
    private readonly seed: CalibrationSeed,
  ) {
    this.counter = shared;
  }

  private static own(state: SessionState, model: string | undefined): CalibrationState | undefined {
    // A session calibrated before models were told apart keeps what it learnt.
    return (model === undefined ? undefined : state.calibrationByModel?.[model]) ?? state.calibration;
  }

  private static set(state: SessionState, model: string | undefined, value: CalibrationState): void {
    if (model === undefined) {
      state.calibration = value;
      return;
    }
    const byModel = { ...state.calibrationByModel };
    delete byModel[model];
    const models = Object.keys(byModel);
    if (models.length >= MODELS_KEPT) delete byModel[models[0]!];
    byModel[model] = value;
    state.calibrationByModel = byModel;
  }

  /**
   * The counter for this call: the session's ratio for `model`; with none, the process's seed,
   * adopted as the session's own (and persisted); with no seed either, exact counts.
   */
  counterFor(record: StateHolder, model: string | undefined): TokenCounter {
    this.model = model;
    const own = SessionCalibration.own(record.state, model);
    let ratio = validRatio(own?.ratio);
    if (ratio === undefined) {
      ratio = this.seed.seedFor(model);
      // Adopted, not followed: another chat's later reports must not move this one's count.
      if (ratio !== undefined) {
        SessionCalibration.set(record.state, model, { ratio, observations: 0 });
        record.touch();
      }
    }
    this.counter = ratio === undefined ? this.shared : this.shared.withRatio(ratio);
    return this.counter;
  }

  /** A usage report for the last call, estimated at `estimatedRaw` tokens before calibration. */
  observe(record: StateHolder, estimatedRaw: number, reported: number): void {
    const next = smoothed(SessionCalibration.own(record.state, this.model), estimatedRaw, reported);
    if (!next) return;
    SessionCalibration.set(record.state, this.model, next);
    record.touch();
    this.seed.learn(this.model, next.ratio);
  }
}

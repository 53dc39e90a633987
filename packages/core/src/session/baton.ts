import type { BaseEngine } from '../budget/engine.ts';
import {
  type BatonOptions,
  type BatonSettings,
  type ResolvedOptions,
  resolveOptions,
} from '../budget/options.ts';
import { stageNameOf } from '../contracts/stage.ts';
import { defaultStages } from '../ladder/stages/index.ts';
import { hasLoneSurrogate } from '../stores/checked-store.ts';
import { CalibrationSeed } from '../tokens/calibration.ts';
import { countRules } from '../tokens/persisted-counts.ts';
import { TokenCounter } from '../tokens/token-counter.ts';
import { BatonConfigError } from '../util/errors.ts';
import { LruCache } from '../util/lru-cache.ts';
import { Session } from './session.ts';
import { registerSessionOptions } from './session-options.ts';

/** Options that give the window up front: `contextWindow`, or a `model` (from the catalog). */
export type WindowGiven = { contextWindow: number } | { model: string };

/** Settings with the window resolved (`createBaton` was given `contextWindow` or `model`). */
export type WindowedSettings = BatonSettings &
  Pick<ResolvedOptions, 'contextWindow' | 'reserveOutput' | 'inputBudget' | 'notesCap' | 'maxSummaryTokens'>;

/** A configured Baton: hands out one `Session` per conversation id. */
export interface Baton<Settings extends BatonSettings = BatonSettings> {
  /**
   * The validated options. The window fields (`contextWindow`, `inputBudget`, `pricing`...) are
   * present when `contextWindow` or `model` gave a window; with the model from each call, they
   * are resolved per call (`resolveCallBudget`).
   */
  readonly options: Settings;
  /**
   * The session for a conversation id: the same object for the same id while it is among the
   * `maxSessions` most recently used (a dropped one is rebuilt from the store).
   */
  session(id: string): Session;
}

/**
 * Creates a Baton. Options are validated once, here; a bad option throws `BatonConfigError`.
 *
 * @example
 * const baton = createBaton({ model: 'gpt-4o' }); // 128k window, thresholds 0.64 / 0.8 / 0.5 / 0.9
 * // or createBaton({}): each call's model (adapters read it from the call) gives its window
 * const prepared = await baton.session('chat-1').prepare({ entries: fromOpenAIChat(messages), system });
 */
export function createBaton(options: BatonOptions & WindowGiven): Baton<WindowedSettings>;
export function createBaton(options: BatonOptions): Baton;
export function createBaton(options: BatonOptions): Baton {
  const resolved = resolveOptions(options);
  const stages = resolved.stages ?? defaultStages();
  const summarizeStages = stages.filter((stage) => stageNameOf(stage) === 'summarize');
  const counter = new TokenCounter(resolved.tokenizer, resolved.opaqueTokens);
  const engine: BaseEngine = {
    options: resolved,
    counter,
    calibrationSeed: new CalibrationSeed(resolved.store, countRules(counter)),
    stages,
    summarizeStages: summarizeStages.length > 0 ? summarizeStages : stages,
    pinPolicy: { pinnedTools: new Set(resolved.pinnedTools), pin: resolved.pin },
    summaryMemo: new Map(),
    continuations: new WeakMap(),
  };
  const sessions = new LruCache<string, Session>(resolved.maxSessions);
  return {
    options: resolved,
    session(id: string): Session {
      if (typeof id !== 'string' || id.length === 0) {
        throw new TypeError('[baton] [session] expected a non-empty session id string');
      }
      // A lone surrogate has no UTF-8 form: SQLite and Postgres store it as U+FFFD, so 'p\uD800',
      // 'p\uDC00' and 'p\uFFFD' would share one session's notes, archive and ledger.
      if (hasLoneSurrogate(id))
        throw new BatonConfigError(
          `[baton] [session] session id ${JSON.stringify(id)} holds a lone surrogate (no UTF-8 form, so stores cannot keep it apart from others)`,
          ['sessionId'],
        );
      return sessions.getOrCreate(id, () => registerSessionOptions(new Session(id, engine), resolved));
    },
  };
}

import { hasLoneSurrogate } from './checked-store.ts';
import type { Engine } from './engine.ts';
import { BatonConfigError } from './errors.ts';
import { LruCache } from './lru-cache.ts';
import { type BatonOptions, type ResolvedOptions, resolveOptions } from './options.ts';
import { Session } from './session.ts';
import { registerSessionOptions } from './session-options.ts';
import { stageNameOf } from './stage.ts';
import { defaultStages } from './stages/index.ts';
import { TokenCounter } from './token-counter.ts';

/** A configured Baton: hands out one `Session` per conversation id. */
export interface Baton {
  readonly options: ResolvedOptions;
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
 * const prepared = await baton.session('chat-1').prepare({ entries: fromOpenAIChat(messages), system });
 */
export function createBaton(options: BatonOptions): Baton {
  const resolved = resolveOptions(options);
  const stages = resolved.stages ?? defaultStages();
  const summarizeStages = stages.filter((stage) => stageNameOf(stage) === 'summarize');
  const engine: Engine = {
    options: resolved,
    counter: new TokenCounter(resolved.tokenizer, resolved.opaqueTokens),
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

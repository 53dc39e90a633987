import {
  type Baton,
  type BatonEvent,
  type BatonOptions,
  createBaton,
  type NeutralTool,
  type Session,
} from '@baton/core';
import type { BaseStore } from '@langchain/langgraph';
import { langGraphStore } from './langgraph-store.ts';

/**
 * One Baton per LangGraph store the graph runs with (notes, ledger and archive live there),
 * and one session per `thread_id`. A `store` in the options (e.g. `sqliteStore` beside a
 * `SqliteSaver`, which has no LangGraph store) takes precedence. Without either, an
 * in-memory fallback, announced once with a `store-fallback` event.
 */
export class ThreadSessions {
  private readonly byStore = new WeakMap<BaseStore, Baton>();
  private fallback: Baton | undefined;

  /** The tools' names, descriptions and schemas (the same for every session). */
  readonly toolTemplate: readonly NeutralTool[];

  private readonly options: BatonOptions;

  constructor(options: BatonOptions & { mode?: unknown }) {
    // Adapter-only keys (the middleware's `mode`) are not the core's to validate.
    const { mode: _mode, ...core } = options;
    this.options = core;
    this.toolTemplate = createBaton({ ...core, store: undefined, onEvent: undefined }).session(
      'template',
    ).tools;
  }

  session(store: BaseStore | null | undefined, threadId: unknown): Session {
    const id = typeof threadId === 'string' && threadId.length > 0 ? threadId : 'default';
    return this.batonFor(store).session(id);
  }

  private batonFor(store: BaseStore | null | undefined): Baton {
    if (store) {
      let baton = this.byStore.get(store);
      if (!baton) {
        baton = createBaton({ ...this.options, store: this.options.store ?? langGraphStore(store) });
        this.byStore.set(store, baton);
      }
      return baton;
    }
    if (!this.fallback) {
      this.fallback = createBaton(this.options);
      // A store passed in the options is the user's choice of persistence, not a fallback.
      if (this.options.store) return this.fallback;
      const event: BatonEvent = {
        type: 'store-fallback',
        reason:
          'no LangGraph store in the runtime (pass `store` to createAgent or compile): notes, ledger and archive are kept in memory',
      };
      this.options.onEvent?.(event);
    }
    return this.fallback;
  }
}

const shared = new WeakMap<BatonOptions, ThreadSessions>();

/** The sessions for an options object: the node, the tools and the middleware built from the same object share them. */
export function sessionsFor(options: BatonOptions): ThreadSessions {
  let sessions = shared.get(options);
  if (!sessions) {
    sessions = new ThreadSessions(options);
    shared.set(options, sessions);
  }
  return sessions;
}

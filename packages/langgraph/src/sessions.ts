import {
  type Baton,
  BatonConfigError,
  type BatonEvent,
  type BatonOptions,
  BatonSessionError,
  createBaton,
  type NeutralTool,
  type Session,
} from '@baton/core';
import type { BaseStore } from '@langchain/langgraph';
import { langGraphStore } from './langgraph-store.ts';

/**
 * Which conversation a call belongs to. `'namespace'` (default): the thread and the graph
 * namespace the node runs in, so a subgraph or a sub-agent invoked from a tool is its own
 * conversation, with its own notes, archive, warnings and probe schedule. `'thread'`: every
 * graph on one `thread_id` shares one session, deliberately.
 */
export type SessionScope = 'namespace' | 'thread';

/** What a node, a model call or a tool knows of its run. */
export interface RunIdentity {
  /** `configurable.thread_id`. */
  threadId?: unknown;
  /** `configurable.checkpoint_ns`: `node:task|node:task|...`, the last segment the running node. */
  namespace?: unknown;
  /** The graph state's messages (the messages reducer gives each an id). */
  messages?: ReadonlyArray<{ id?: unknown }>;
}

/**
 * The session id of a run. A thread is a conversation; without a `thread_id` (no
 * checkpointer) the run is its own conversation, named by its first message's id, which the
 * messages reducer assigns and keeps for the whole run. Nested graphs add the namespace of
 * the node that runs them. A run with neither is refused: a shared default would show one
 * conversation another's notes and notices.
 */
export function sessionIdOf(run: RunIdentity, scope: SessionScope = 'namespace'): string {
  const first = run.messages?.[0]?.id;
  const conversation =
    typeof run.threadId === 'string' && run.threadId.length > 0
      ? run.threadId
      : typeof first === 'string' && first.length > 0
        ? `run:${first}`
        : undefined;
  if (conversation === undefined) {
    throw new BatonSessionError(
      'langgraph',
      'pass { configurable: { thread_id } } to invoke / stream (with a checkpointer to keep the thread), or keep ids on the messages (the messages reducer of MessagesAnnotation and createAgent assigns them)',
    );
  }
  if (scope === 'thread' || typeof run.namespace !== 'string') return conversation;
  // The graph the node runs in: its namespace without the node's own segment ('' at the root).
  const graph = run.namespace.split('|').slice(0, -1).join('|');
  return graph.length > 0 ? `${conversation}|${graph}` : conversation;
}

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
  private readonly scope: SessionScope;

  constructor(options: BatonOptions & { mode?: unknown; sessionScope?: unknown }) {
    // Adapter-only keys (the middleware's `mode`, `sessionScope`) are not the core's to validate.
    const { mode: _mode, sessionScope, ...core } = options;
    if (sessionScope !== undefined && sessionScope !== 'namespace' && sessionScope !== 'thread') {
      throw new BatonConfigError(
        `[baton] [options] sessionScope: expected 'namespace' or 'thread', received ${JSON.stringify(sessionScope)}`,
        ['sessionScope'],
      );
    }
    this.scope = sessionScope ?? 'namespace';
    this.options = core;
    this.toolTemplate = createBaton({ ...core, store: undefined, onEvent: undefined }).session(
      'template',
    ).tools;
  }

  /** The session of a run (see `sessionIdOf`); throws `BatonSessionError` when the run names none. */
  session(store: BaseStore | null | undefined, run: RunIdentity): Session {
    const id = sessionIdOf(run, this.scope);
    return this.batonFor(store, id).session(id);
  }

  /** `sessionId`: the session that found no store, named in the `store-fallback` event. */
  private batonFor(store: BaseStore | null | undefined, sessionId: string): Baton {
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
        sessionId,
        reason:
          'no LangGraph store in the runtime (pass `store` to createAgent or compile): notes, ledger and archive are kept in memory',
      };
      this.options.onEvent?.(event);
    }
    return this.fallback;
  }
}

const shared = new WeakMap<BatonOptions, ThreadSessions>();

/** Options of the node, the tools and the middleware: the core's, and how runs map to sessions. */
export interface LangGraphBatonOptions extends BatonOptions {
  /** Default `'namespace'`: subgraphs and sub-agents get sessions of their own (see `SessionScope`). */
  sessionScope?: SessionScope;
}

/** The sessions for an options object: the node, the tools and the middleware built from the same object share them. */
export function sessionsFor(options: LangGraphBatonOptions): ThreadSessions {
  let sessions = shared.get(options);
  if (!sessions) {
    sessions = new ThreadSessions(options);
    shared.set(options, sessions);
  }
  return sessions;
}

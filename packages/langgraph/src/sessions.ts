import { type Baton, type BatonEvent, type BatonOptions, createBaton, type Session } from '@baton/core';
import type { BaseStore } from '@langchain/langgraph';
import { langGraphStore } from './langgraph-store.ts';

/**
 * One Baton per LangGraph store the graph runs with (notes, ledger and archive live there),
 * and one session per `thread_id`. Without a store, an in-memory fallback, announced once
 * with a `store-fallback` event.
 */
export class ThreadSessions {
  private readonly byStore = new WeakMap<BaseStore, Baton>();
  private fallback: Baton | undefined;

  constructor(private readonly options: BatonOptions) {}

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

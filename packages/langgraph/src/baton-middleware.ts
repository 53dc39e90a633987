import {
  BatonConfigError,
  type BatonOptions,
  callWithOverflowRecovery,
  type Notice,
  type Prepared,
  renderNotices,
  type Session,
  type UnfitInfo,
} from '@baton/core';
import { AIMessage, type BaseMessage, RemoveMessage } from '@langchain/core/messages';
import { type BaseStore, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createMiddleware } from 'langchain';
import { createBatonTools } from './agent-tools.ts';
import { fromEntries, toEntries } from './message-conversion.ts';
import { sessionsFor } from './sessions.ts';

function unfitMessage(unfit: UnfitInfo): AIMessage {
  return new AIMessage({
    content:
      `[baton] This step was not sent to the model: the context cannot fit the window (${unfit.reason}). ` +
      `Nothing was lost: a checkpoint is saved as ${JSON.stringify(unfit.checkpointRef)}, and the next turn starts with a notice explaining it.`,
    response_metadata: {
      baton: { outcome: 'unfit', reason: unfit.reason, checkpointRef: unfit.checkpointRef },
    },
  });
}

interface RequestLike {
  messages: import('@langchain/core/messages').BaseMessage[];
  systemPrompt: string;
  tools: ReadonlyArray<{ name?: string; description?: string }>;
  runtime: { store?: unknown; configurable?: { thread_id?: unknown } };
}

export interface BatonMiddlewareOptions extends BatonOptions {
  /**
   * `'view'` (default): every model call gets a projection; the thread's state keeps its full
   * history. `'rewrite'`: `beforeModel` replaces the state's messages with the projection
   * (`REMOVE_ALL_MESSAGES`), archive first, so the checkpoint itself stays small.
   */
  mode?: 'view' | 'rewrite';
}

/**
 * Baton for LangChain v1 `createAgent`: view-mode compaction in `wrapModelCall` (a new
 * messages array every call; `request.messages` and the checkpointed state are never
 * touched), the agent's `notes`, `compact` and `recall` tools, session = `thread_id`,
 * notes/ledger/archive in the graph's LangGraph store. A context-overflow error is recovered
 * once; an `unfit` outcome returns an AIMessage that explains it (no tool calls, so the
 * agent ends) instead of throwing.
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [batonMiddleware({ model: 'gpt-4o' })], store: new InMemoryStore() });
 */
export function batonMiddleware(options: BatonMiddlewareOptions) {
  const mode = options.mode ?? 'view';
  if (mode !== 'view' && mode !== 'rewrite') {
    throw new BatonConfigError(
      `[baton] [options] mode: expected 'view' or 'rewrite', received ${JSON.stringify(mode)}`,
      ['mode'],
    );
  }
  const sessions = sessionsFor(options);
  // Rewrite mode: what beforeModel evicted is told to the model by the next wrapModelCall.
  const pendingNotices = new WeakMap<Session, Notice[]>();

  async function prepare(session: Session, request: RequestLike): Promise<Prepared> {
    const carried = renderNotices(pendingNotices.get(session) ?? []);
    pendingNotices.delete(session);
    return session.prepare({
      entries: toEntries(request.messages),
      system: [request.systemPrompt, carried].filter((block) => block.length > 0).join('\n\n'),
      tools: request.tools.map((t) => ({
        name: t.name ?? 'tool',
        ...(t.description ? { description: t.description } : {}),
      })),
    });
  }

  async function rewrite(state: { messages: BaseMessage[] }, runtime: RequestLike['runtime']) {
    const session = sessions.session(runtime.store as BaseStore | undefined, runtime.configurable?.thread_id);
    const prepared = await session.prepare({ entries: toEntries(state.messages) });
    const projected = fromEntries(prepared.entries);
    if (prepared.notices.length > 0) pendingNotices.set(session, prepared.notices);
    const unchanged =
      projected.length === state.messages.length && projected.every((m, i) => m === state.messages[i]);
    return unchanged
      ? undefined
      : { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...projected] };
  }

  return createMiddleware({
    name: 'BatonMiddleware',
    tools: createBatonTools(sessions),
    ...(mode === 'rewrite'
      ? {
          beforeModel: (state: { messages: BaseMessage[] }, runtime: unknown) =>
            rewrite(state, runtime as RequestLike['runtime']),
        }
      : {}),
    wrapModelCall: async (request, handler) => {
      const req = request as unknown as RequestLike;
      const session = sessions.session(
        req.runtime.store as BaseStore | undefined,
        req.runtime.configurable?.thread_id,
      );
      const response = await callWithOverflowRecovery(session, {
        attempt: await prepare(session, req),
        prepared: (attempt) => attempt,
        reprepare: () => prepare(session, req),
        call: (attempt) =>
          handler({ ...request, messages: fromEntries(attempt.entries), systemPrompt: attempt.system }),
        unfit: unfitMessage,
      });
      const input = response.usage_metadata?.input_tokens;
      if (typeof input === 'number' && input > 0) session.observeUsage({ inputTokens: input });
      return response;
    },
  });
}

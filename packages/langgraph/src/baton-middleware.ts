import { BatonConfigError, type Notice, type Prepared, type Session, type ToolSchema } from '@baton/core';
import { callWithOverflowRecovery, renderNotices, type UnfitInfo } from '@baton/core/internals';
import { AIMessage, type BaseMessage, RemoveMessage } from '@langchain/core/messages';
import { type BaseStore, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createMiddleware } from 'langchain';
import { z } from 'zod/v4';
import { createBatonTools } from './agent-tools.ts';
import { type ChatModelLike, hostModelFor } from './host-model.ts';
import { fromEntries, toEntries } from './message-conversion.ts';
import { type LangGraphBatonOptions, type RunIdentity, sessionsFor } from './sessions.ts';

function unfitMessage(unfit: UnfitInfo): AIMessage {
  return new AIMessage({
    content: unfit.message,
    response_metadata: {
      baton: { outcome: 'unfit', reason: unfit.reason, checkpointRef: unfit.checkpointRef },
    },
  });
}

/**
 * The middleware's own state. `_`-prefixed keys are private to the agent (not part of its
 * input or output) but checkpointed with the thread, so what `beforeModel` decides reaches
 * the model call even if another worker or a restarted process runs it.
 */
const batonState = z.object({
  /** Rewrite mode: notices of the compaction `beforeModel` wrote into the state, for this step's model call. */
  _batonNotices: z
    .array(z.object({ type: z.enum(['warning', 'eviction', 'degrade', 'unfit']), text: z.string() }))
    .default([]),
});

interface RequestLike {
  model?: ChatModelLike;
  messages: BaseMessage[];
  systemPrompt: string;
  tools: ReadonlyArray<{ name?: string; description?: string }>;
  state: { _batonNotices?: Notice[]; messages?: BaseMessage[] };
  runtime: { store?: unknown; configurable?: { thread_id?: unknown; checkpoint_ns?: unknown } };
}

/** The run a hook runs in, as `ThreadSessions` reads it. */
function runOf(runtime: RequestLike['runtime'], messages: readonly BaseMessage[]): RunIdentity {
  return {
    threadId: runtime.configurable?.thread_id,
    namespace: runtime.configurable?.checkpoint_ns,
    messages,
  };
}

export interface BatonMiddlewareOptions extends LangGraphBatonOptions {
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

  // beforeModel cannot see the request's system prompt and tools; the rewrite counts the
  // ones of the thread's last model call, so it compacts at the size the model will get.
  const lastRequest = new WeakMap<Session, { system: string; tools: ToolSchema[] }>();

  async function prepare(session: Session, request: RequestLike): Promise<Prepared> {
    const carried = renderNotices(request.state._batonNotices ?? []);
    const tools = request.tools.map((t) => ({
      name: t.name ?? 'tool',
      ...(t.description ? { description: t.description } : {}),
    }));
    lastRequest.set(session, { system: request.systemPrompt, tools });
    return session.prepare({
      entries: toEntries(request.messages),
      system: [request.systemPrompt, carried].filter((block) => block.length > 0).join('\n\n'),
      tools,
      // The agent's own chat model answers probes and writes continuation summaries.
      ...(request.model ? { model: hostModelFor(request.model) } : {}),
    });
  }

  async function rewrite(state: { messages: BaseMessage[] }, runtime: RequestLike['runtime']) {
    const session = sessions.session(runtime.store as BaseStore | undefined, runOf(runtime, state.messages));
    const prepared = await session.prepare({
      entries: toEntries(state.messages),
      ...lastRequest.get(session),
    });
    if (!prepared.changed && prepared.notices.length === 0) return undefined;
    return {
      ...(prepared.changed
        ? { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...fromEntries(prepared.entries)] }
        : {}),
      _batonNotices: prepared.notices,
    };
  }

  return createMiddleware({
    name: 'BatonMiddleware',
    stateSchema: batonState,
    tools: createBatonTools(sessions),
    ...(mode === 'rewrite'
      ? {
          beforeModel: (state: { messages: BaseMessage[] }, runtime: unknown) =>
            rewrite(state, runtime as RequestLike['runtime']),
          // Notices are for one model call: the next step's beforeModel decides afresh.
          afterModel: (state: { _batonNotices?: Notice[] }) =>
            state._batonNotices && state._batonNotices.length > 0 ? { _batonNotices: [] } : undefined,
        }
      : {}),
    wrapModelCall: async (request, handler) => {
      const req = request as unknown as RequestLike;
      const session = sessions.session(
        req.runtime.store as BaseStore | undefined,
        runOf(req.runtime, req.state.messages ?? req.messages),
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

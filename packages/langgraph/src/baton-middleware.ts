import { BatonConfigError, type Prepared, providerCompactionOf, type Session } from '@baton/core';
import { callWithOverflowRecovery, storableEntries, type UnfitInfo } from '@baton/core/internals';
import { AIMessage, type BaseMessage, RemoveMessage } from '@langchain/core/messages';
import { type BaseStore, Command, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createMiddleware } from 'langchain';
import { createBatonTools } from './agent-tools.ts';
import { callOutputOf } from './call-model.ts';
import { type ChatModelLike, hostModelFor } from './host-model.ts';
import { fromEntries, toEntries, trailerMessages } from './message-conversion.ts';
import { withCacheHints } from './prompt-cache.ts';
import { type LangGraphBatonOptions, type RunIdentity, sessionsFor } from './sessions.ts';
import { type ToolLike, toolSchemasOf } from './tool-schemas.ts';

function unfitMessage(unfit: UnfitInfo): AIMessage {
  return new AIMessage({
    content: unfit.message,
    response_metadata: {
      baton: { outcome: 'unfit', reason: unfit.reason, checkpointRef: unfit.checkpointRef },
    },
  });
}

interface RequestLike {
  model?: ChatModelLike;
  systemMessage?: unknown;
  modelSettings?: Record<string, unknown>;
  messages: BaseMessage[];
  systemPrompt: string;
  tools: ReadonlyArray<ToolLike>;
  state: { messages?: BaseMessage[] };
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
   * history. `'rewrite'`: when a call's projection changed, the model node's update replaces
   * the state's messages with it (`REMOVE_ALL_MESSAGES`), archive first, so the checkpoint
   * itself stays small. Either way one `prepare` per model call.
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

  function prepare(session: Session, request: RequestLike): Promise<Prepared> {
    // An unfit reply the thread stored is dropped by `prepare` in either mode (the unfit notice
    // tells the agent); rewrite mode then writes the thread back without it.
    return session.prepare({
      entries: toEntries(request.messages),
      system: request.systemPrompt,
      tools: toolSchemasOf(request.tools),
      // The agent's own chat model answers probes and writes continuation summaries; its id,
      // provider and max_tokens give this call's window and output reservation.
      ...(request.model ? { model: hostModelFor(request.model), ...callOutputOf(request.model) } : {}),
      // ChatAnthropic's own server-side compaction or context editing, when the model has it on.
      providerCompaction: providerCompactionOf({
        anthropic: {
          contextManagement: (request.model as { contextManagement?: unknown } | undefined)
            ?.contextManagement,
        },
      }),
    });
  }

  return createMiddleware({
    name: 'BatonMiddleware',
    tools: createBatonTools(sessions),
    wrapModelCall: async (request, handler) => {
      const req = request as unknown as RequestLike;
      const session = sessions.session(
        req.runtime.store as BaseStore | undefined,
        runOf(req.runtime, req.state.messages ?? req.messages),
      );
      let sent: Prepared | undefined;
      const response = await callWithOverflowRecovery(session, {
        attempt: await prepare(session, req),
        prepared: (attempt) => attempt,
        reprepare: () => prepare(session, req),
        call: (attempt) => {
          sent = attempt;
          // Notes in the system prompt (changed only at a compaction), notices after the
          // conversation, the provider's cache hints before them.
          const hinted = withCacheHints(session, req, attempt, fromEntries(attempt.entries));
          return handler({
            ...request,
            ...hinted,
            messages: [...hinted.messages, ...trailerMessages(attempt.trailer)],
          } as typeof request);
        },
        unfit: unfitMessage,
      });
      const input = response.usage_metadata?.input_tokens;
      if (typeof input === 'number' && input > 0) session.observeUsage({ inputTokens: input });
      if (mode === 'view' || !sent?.changed) return response;
      // Rewrite: the node's update replaces the thread's messages with what the model saw,
      // then its reply (the agent node's own append of the reply comes first and is replaced
      // with the rest). Placeholder results for unanswered calls are never stored.
      return new Command({
        update: {
          messages: [
            new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
            ...fromEntries(storableEntries(sent.entries)),
            response,
          ],
        },
      });
    },
  });
}

import type { BatonOptions, Prepared, Session } from '@baton/core';
import { AIMessage } from '@langchain/core/messages';
import type { BaseStore } from '@langchain/langgraph';
import { createMiddleware } from 'langchain';
import { createBatonTools } from './agent-tools.ts';
import { fromEntries, toEntries } from './message-conversion.ts';
import { sessionsFor } from './sessions.ts';

function unfitMessage(prepared: { reason?: string; checkpointRef?: string }): AIMessage {
  return new AIMessage({
    content:
      `[baton] This step was not sent to the model: the context cannot fit the window (${prepared.reason ?? 'over budget'}). ` +
      `Nothing was lost: a checkpoint is saved as ${JSON.stringify(prepared.checkpointRef ?? '')}, and the next turn starts with a notice explaining it.`,
    response_metadata: {
      baton: { outcome: 'unfit', reason: prepared.reason, checkpointRef: prepared.checkpointRef },
    },
  });
}

interface RequestLike {
  messages: import('@langchain/core/messages').BaseMessage[];
  systemPrompt: string;
  tools: ReadonlyArray<{ name?: string; description?: string }>;
  runtime: { store?: unknown; configurable?: { thread_id?: unknown } };
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
export function batonMiddleware(options: BatonOptions) {
  const sessions = sessionsFor(options);

  async function prepare(session: Session, request: RequestLike): Promise<Prepared> {
    return session.prepare({
      entries: toEntries(request.messages),
      system: request.systemPrompt,
      tools: request.tools.map((t) => ({
        name: t.name ?? 'tool',
        ...(t.description ? { description: t.description } : {}),
      })),
    });
  }

  return createMiddleware({
    name: 'BatonMiddleware',
    tools: createBatonTools(sessions),
    wrapModelCall: async (request, handler) => {
      const req = request as unknown as RequestLike;
      const session = sessions.session(
        req.runtime.store as BaseStore | undefined,
        req.runtime.configurable?.thread_id,
      );
      const call = (prepared: Prepared) =>
        handler({ ...request, messages: fromEntries(prepared.entries), systemPrompt: prepared.system });
      let prepared = await prepare(session, req);
      if (prepared.outcome === 'unfit') return unfitMessage(prepared);
      let response: AIMessage;
      try {
        response = await call(prepared);
      } catch (error) {
        const verdict = await session.recoverFromOverflow(error);
        if (verdict === 'not-overflow') throw error;
        if (verdict === 'unfit') return unfitMessage(session.unfit ?? {});
        prepared = await prepare(session, req);
        if (prepared.outcome === 'unfit') return unfitMessage(prepared);
        try {
          response = await call(prepared);
        } catch (second) {
          if ((await session.recoverFromOverflow(second)) === 'not-overflow') throw second;
          return unfitMessage(session.unfit ?? {});
        }
      }
      const input = response.usage_metadata?.input_tokens;
      if (typeof input === 'number' && input > 0) session.observeUsage({ inputTokens: input });
      return response;
    },
  });
}

import { BatonConfigError } from '@baton/core';
import { storableEntries } from '@baton/core/internals';
import { AIMessage, type BaseMessage, RemoveMessage, SystemMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type BaseStore, END, type LangGraphRunnableConfig, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createBatonTools } from './agent-tools.ts';
import { fromEntries, isNoticesMessage, toEntries, trailerMessages } from './message-conversion.ts';
import { type LangGraphBatonOptions, sessionsFor } from './sessions.ts';
import { type ToolLike, toolSchemasOf } from './tool-schemas.ts';

/** What the model node after the compaction sends besides the messages, so it is counted too. */
export interface CompactionNodeRequest {
  /** The system prompt the model node adds (not part of the state's messages). */
  systemPrompt?: string;
  /** The tools bound to the model (their JSON schemas are counted): yours and `batonTools(options)`. */
  tools?: ReadonlyArray<ToolLike>;
}

/** Id of the system message that carries the agent's notes (re-rendered only at a compaction). */
export const CONTEXT_MESSAGE_ID = 'baton-context';

function withContext(messages: BaseMessage[], block: string): BaseMessage[] {
  if (block.length === 0) return messages;
  let at = 0;
  while (at < messages.length && messages[at]!.type === 'system') at++;
  return [
    ...messages.slice(0, at),
    new SystemMessage({ id: CONTEXT_MESSAGE_ID, content: block }),
    ...messages.slice(at),
  ];
}

/**
 * A graph node for hand-built `StateGraph`s over `MessagesAnnotation` (rewrite mode): it runs
 * `prepare` on the thread's messages and, when the projection or the notes block changed (a
 * compaction), replaces the state's messages with it (`REMOVE_ALL_MESSAGES`), after the
 * evicted ones are archived in the graph's store. This step's notices are appended as a last
 * HumanMessage and removed by the next run of the node, so the thread's prefix stays byte for
 * byte what the model saw (prompt caches keep hitting). An `unfit` outcome appends an AIMessage that
 * explains it; route on it with `routeAfterCompaction`. Pass the model node's system prompt
 * and tools as `request` so the budget counts them (the node cannot see them otherwise).
 * Placeholder results for calls still awaiting theirs are never written into the state.
 *
 * @example
 * new StateGraph(MessagesAnnotation)
 *   .addNode('compact', createCompactionNode(options))
 *   .addNode('model', callModel)
 *   .addNode('tools', new ToolNode([...myTools, ...batonTools(options)]))
 *   .addEdge(START, 'compact')
 *   .addConditionalEdges('compact', routeAfterCompaction('model'))
 *   .addConditionalEdges('model', toolsOrEnd)
 *   .addEdge('tools', 'compact');
 */
export function createCompactionNode(options: LangGraphBatonOptions, request: CompactionNodeRequest = {}) {
  const mode = (options as { mode?: unknown }).mode;
  if (mode !== undefined && mode !== 'rewrite') {
    throw new BatonConfigError(
      `[baton] [options] mode: the compaction node always rewrites the state; view mode is batonMiddleware's (received ${JSON.stringify(mode)})`,
      ['mode'],
    );
  }
  const sessions = sessionsFor(options);
  const tools = toolSchemasOf(request.tools);
  return async function batonCompactionNode(
    state: { messages: BaseMessage[] },
    config?: LangGraphRunnableConfig,
  ) {
    const session = sessions.session(config?.store as BaseStore | undefined, {
      threadId: config?.configurable?.thread_id,
      namespace: config?.configurable?.checkpoint_ns,
      messages: state.messages,
    });
    const current = state.messages.find((m) => m.id === CONTEXT_MESSAGE_ID);
    const told = state.messages.filter(isNoticesMessage);
    const history = state.messages.filter((m) => m.id !== CONTEXT_MESSAGE_ID && !isNoticesMessage(m));
    const prepared = await session.prepare({
      entries: toEntries(history),
      ...(request.systemPrompt ? { system: request.systemPrompt } : {}),
      tools,
    });
    const sameBlock = (current?.text ?? '') === prepared.block;
    const unfit =
      prepared.outcome === 'unfit'
        ? [
            new AIMessage({
              content: prepared.message,
              response_metadata: {
                baton: { outcome: 'unfit', reason: prepared.reason, checkpointRef: prepared.checkpointRef },
              },
            }),
          ]
        : [];
    const trailer = trailerMessages(prepared.trailer);
    if (!prepared.changed && sameBlock) {
      // The last step's notices leave; the messages before them stay exactly as they were.
      return {
        messages: [...told.map((m) => new RemoveMessage({ id: m.id as string })), ...trailer, ...unfit],
      };
    }
    return {
      messages: [
        new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
        ...withContext(fromEntries(storableEntries(prepared.entries)), prepared.block),
        ...trailer,
        ...unfit,
      ],
    };
  };
}

/** After the compaction node: to `next`, or to END when the compaction ended the turn as unfit. */
export function routeAfterCompaction(next: string) {
  return function batonRoute(state: { messages: BaseMessage[] }): string {
    const last = state.messages.at(-1) as AIMessage | undefined;
    const outcome = (last?.response_metadata as { baton?: { outcome?: string } } | undefined)?.baton?.outcome;
    return outcome === 'unfit' ? END : next;
  };
}

/** `notes`, `compact` and `recall` for a `ToolNode`; pass the same options object as to the node so they share sessions. */
export function batonTools(options: LangGraphBatonOptions): StructuredToolInterface[] {
  return createBatonTools(sessionsFor(options));
}

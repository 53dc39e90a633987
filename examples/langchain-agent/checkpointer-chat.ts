/**
 * A chat backend on LangChain v1 `createAgent` with a checkpointer: every user message is one
 * run on the conversation's `thread_id`, so the agent only ever receives the new message and
 * the checkpointer supplies the rest.
 *
 * `batonMiddleware` keeps each model call inside the context window (view mode: the
 * checkpointed thread keeps its full history, the model gets a projection of it). Baton's
 * ledger, notes and archive live in the agent's LangGraph `store`, so a process that restarts
 * with the same checkpointer and store continues the thread where the old one stopped, and
 * whatever was evicted before the restart is still reachable through the `recall` tool.
 *
 * @example
 * // checkpointer and store on one database, e.g. PostgresSaver and PostgresStore
 * const chat = createChat({ model: 'openai:gpt-4o', checkpointer, store, contextWindow: 128_000 });
 * const { reply } = await chat.send(`user-${userId}`, 'Summarize the attached contract.');
 */
import { type BatonEvent, batonMiddleware } from '@baton/langgraph';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ClientTool } from '@langchain/core/tools';
import type { BaseCheckpointSaver, BaseStore } from '@langchain/langgraph';
import { createAgent } from 'langchain';

export interface ChatOptions {
  /** A chat model, or a `provider:model` id for `initChatModel`. */
  model: BaseChatModel | string;
  /** Where the thread's messages persist (`MemorySaver` in tests, `PostgresSaver`, `SqliteSaver`, …). */
  checkpointer: BaseCheckpointSaver;
  /** Where Baton's ledger, notes and archive persist, per thread. Must outlive the process, like the checkpointer. */
  store: BaseStore;
  /** The model's context window in tokens (or pass a catalogued model id to Baton instead). */
  contextWindow: number;
  /** The app's own tools; Baton adds `notes`, `compact` and `recall`. */
  tools?: ClientTool[];
  systemPrompt?: string;
  /** Baton's events (stage counts, never content): the place for compaction metrics. */
  onEvent?: (event: BatonEvent) => void;
}

export interface SendOptions {
  /**
   * Stream the turn: called with every message as the thread gains it (tool calls, tool
   * results, the reply), e.g. to show progress in the UI.
   */
  onMessage?: (message: BaseMessage) => void;
}

export interface Turn {
  /** The agent's last message of the turn. */
  reply: string;
  /**
   * Baton could not fit this step into the window (e.g. pinned content alone is too large) and
   * answered itself, without calling the model; the reply explains it to the user.
   */
  unfit: boolean;
  /** The whole thread after the turn, as checkpointed. */
  messages: BaseMessage[];
}

export function createChat({
  model,
  checkpointer,
  store,
  contextWindow,
  tools = [],
  systemPrompt,
  onEvent,
}: ChatOptions) {
  const agent = createAgent({
    model,
    tools,
    ...(systemPrompt ? { systemPrompt } : {}),
    // One middleware instance per agent; its state is in `store`, so nothing is lost with it.
    middleware: [batonMiddleware({ contextWindow, ...(onEvent ? { onEvent } : {}) })],
    checkpointer,
    store,
  });

  return {
    async send(threadId: string, text: string, { onMessage }: SendOptions = {}): Promise<Turn> {
      // The thread id is also Baton's session id: one conversation, one archive.
      const config = { configurable: { thread_id: threadId } };
      const input = { messages: [new HumanMessage(text)] };
      let messages: BaseMessage[];
      if (onMessage) {
        messages = [];
        let seen: number | undefined;
        for await (const state of await agent.stream(input, { ...config, streamMode: 'values' })) {
          messages = state.messages;
          // The first state is the restored thread plus the new message: only report what follows.
          for (const message of messages.slice(seen ?? messages.length)) onMessage(message);
          seen = messages.length;
        }
      } else {
        messages = (await agent.invoke(input, config)).messages;
      }
      const last = messages.at(-1);
      const meta = last?.response_metadata as { baton?: { outcome?: string } } | undefined;
      return { reply: last?.text ?? '', unfit: meta?.baton?.outcome === 'unfit', messages };
    },
  };
}

/**
 * The chat recipe most Mastra apps deploy, with Baton added: an Agent whose Memory keeps every
 * thread in LibSQL on a local file and replays its last 10 messages, and Baton's processor so
 * that each model call fits the context window however large one message is (a pasted
 * document, a long tool result). One user message is one `generate` or `stream` on the
 * thread; a restarted process is a new `createMemoryChat` on the same file and goes on where
 * the thread left off. Baton's ledger and archive live in the same database, so what left
 * the window stays recallable by the model (`recall`) across restarts.
 *
 * `memory-chat.test.ts` runs it for 26 turns against a scripted model.
 */
import { type BatonUnfitOutcome, batonProcessor } from '@baton/mastra';
import { Agent, type ToolsInput } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';

export interface MemoryChatOptions {
  model: MastraModelConfig;
  /** The SQLite file: Mastra's threads and messages, and Baton's ledger and archive. */
  dbFile: string;
  /** The model's context window, in tokens. */
  contextWindow: number;
  tools?: ToolsInput;
}

export interface ChatReply {
  text: string;
  /**
   * Set when the conversation no longer fits even after compaction: the model was not called
   * and `text` is Baton's explanation for the user (nothing was lost; start a new thread or
   * send less), not an answer.
   */
  unfit?: BatonUnfitOutcome;
}

/**
 * @example
 * const chat = createMemoryChat({ model: openai('gpt-4o'), dbFile: './chat.db', contextWindow: 128_000 });
 * const reply = await chat.send({ thread: conversationId, resource: userId }, message);
 * if (reply.unfit) offerNewConversation(reply.text); // the model was not called this turn
 * else show(reply.text);
 */
export function createMemoryChat({ model, dbFile, contextWindow, tools = {} }: MemoryChatOptions) {
  const storage = new LibSQLStore({ id: 'memory-chat', url: `file:${dbFile}` });
  const memory = new Memory({ storage, options: { lastMessages: 10 } });
  // Mastra hands processors no agent, so Baton is given the Memory: that is where it finds the
  // thread's storage for its own state, with no second database to run.
  const baton = batonProcessor({ contextWindow, memory });
  const agent = new Agent({
    id: 'memory-chat',
    name: 'Memory chat',
    instructions:
      'You are a helpful assistant. Parts of a long conversation may have been archived: use recall to read them again.',
    model,
    tools,
    memory,
    // Input, output and error processor at once: Mastra calls a different hook on each list.
    ...baton.lists,
  });

  /**
   * One user message on a thread. With `onText` the turn streams and each text delta is
   * handed over as it arrives.
   */
  async function send(
    conversation: { thread: string; resource: string },
    text: string,
    { onText }: { onText?: (delta: string) => void } = {},
  ): Promise<ChatReply> {
    const options = { memory: conversation, maxSteps: 10 };
    if (!onText) {
      const result = await agent.generate(text, options);
      return { text: result.text, unfit: baton.unfitOf(result) };
    }
    const output = await agent.stream(text, options);
    for await (const delta of output.textStream) onText(delta);
    // A stream's result is its response: unfitOf reads the run's response messages.
    return { text: await output.text, unfit: baton.unfitOf({ response: await output.response }) };
  }

  return {
    agent,
    baton,
    memory,
    send,
    /** Releases the database file (a process that exits needs no call). */
    close: () => storage.close(),
  };
}

/**
 * A `useChat` route handler with Baton: the recipe for a chat app on the Vercel AI SDK.
 *
 * `useChat` re-sends the whole UI history on every request, so a long chat (or one pasted
 * document) eventually outgrows the model's window. Here Baton keeps each request's prompt
 * within budget while the client's history stays complete: what it evicts goes to a SQLite
 * archive the model can `recall` from, keyed by the chat id, so it survives a redeploy.
 *
 * In a Next.js App Router project, `app/api/chat/route.ts`:
 *
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * import { createChatRoute } from './chat-route';
 *
 * export const { POST } = createChatRoute({
 *   model: openai('gpt-4o-mini'), // named once: Baton reads the window and output limit from the call
 *   dbPath: './baton.db',
 * });
 * ```
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { type BatonOptions, createBaton, sqliteStore } from '@baton/ai-sdk';
import {
  convertToModelMessages,
  createUIMessageStreamResponse,
  stepCountIs,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
  wrapLanguageModel,
} from 'ai';

export interface ChatRouteOptions {
  model: LanguageModelV4;
  /** The SQLite file for Baton's ledger, notes and archive (created if absent). */
  dbPath: string;
  /**
   * The model's context window in tokens. Default: the catalog entry of the model each call goes
   * to (Baton reads `model.modelId` from the call); pass it for a model Baton does not know.
   */
  contextWindow?: number;
  /** The app's own tools; Baton adds `notes`, `compact` and `recall`. */
  tools?: ToolSet;
  /** The system prompt; Baton's notes and notices go in a system message right after it. */
  instructions?: string;
  /** Model calls per request (tool round trips included). */
  maxSteps?: number;
  /** Baton's events (counts and names, never content): log them or send them to metrics. */
  onEvent?: BatonOptions['onEvent'];
}

/** What `useChat` (`DefaultChatTransport`) posts. */
export interface ChatRequestBody {
  id: string;
  messages: UIMessage[];
}

export function createChatRoute({
  model,
  dbPath,
  contextWindow,
  tools = {},
  instructions,
  maxSteps = 8,
  onEvent,
}: ChatRouteOptions) {
  // One store and one Baton per process, not per request: the session cache and the
  // token calibration live here, and every request of a chat shares them.
  const store = sqliteStore({ path: dbPath });
  const baton = createBaton({
    ...(contextWindow === undefined ? {} : { contextWindow }),
    store,
    ...(onEvent ? { onEvent } : {}),
  });

  async function POST(request: Request): Promise<Response> {
    const { id, messages } = (await request.json()) as Partial<ChatRequestBody>;
    // A chat without an id would have no session of its own: refuse it at the door.
    if (typeof id !== 'string' || id.length === 0 || !Array.isArray(messages))
      return Response.json({ error: 'expected { id: string, messages: UIMessage[] }' }, { status: 400 });
    // Keyed by the chat id: a chat reloads its ledger and archive from the file after a
    // restart, and no two chats ever share one.
    const session = baton.session(id);
    const allTools = { ...tools, ...session.tools };
    const result = streamText({
      // View mode: Baton rewrites each model call's prompt, never the client's history,
      // so the UI keeps showing everything that was said.
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      ...(instructions === undefined ? {} : { instructions }),
      messages: await convertToModelMessages(messages, { tools: allTools }),
      tools: allTools,
      stopWhen: stepCountIs(maxSteps),
    });
    return createUIMessageStreamResponse({
      stream: toUIMessageStream({ stream: result.stream, tools: allTools }),
    });
  }

  return {
    POST,
    /** Closes the SQLite connection (on shutdown; Next.js itself never calls this). */
    close: () => store.close(),
  };
}

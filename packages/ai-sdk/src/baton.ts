import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import { type Baton, type BatonOptions, createBaton as createCoreBaton, type Session } from '@baton/core';
import { type BatonToolSet, batonTools } from './agent-tools.ts';
import { batonMiddleware } from './middleware.ts';
import { batonPrepareStep } from './prepare-step.ts';
import { loadTelemetry, recordSpanEvent } from './telemetry.ts';

/** One conversation, in the AI SDK's idiom. */
export interface AiSdkSession {
  readonly id: string;
  /** The core session: prepare, archive, notes, observeUsage, recoverFromOverflow. */
  readonly core: Session;
  /** For `wrapLanguageModel({ model, middleware })`: view mode, the SDK's history stays complete. */
  readonly middleware: LanguageModelV4Middleware;
  /** `notes`, `compact`, `recall` built with `tool()`: spread into `tools`. */
  readonly tools: BatonToolSet;
  /** Rewrite mode for agent loops (`prepareStep`): use instead of the middleware. */
  readonly prepareStep: ReturnType<typeof batonPrepareStep>;
}

export interface AiSdkBaton {
  readonly core: Baton;
  /** The session for a conversation id (the same object for the same id). */
  session(id: string): AiSdkSession;
  /**
   * One middleware for many conversations: the session id comes from
   * `providerOptions: { baton: { sessionId } }` of each call (`'default'` when absent).
   */
  readonly middleware: LanguageModelV4Middleware;
}

function sessionIdOf(providerOptions: unknown): string {
  const id = (providerOptions as { baton?: { sessionId?: unknown } } | undefined)?.baton?.sessionId;
  return typeof id === 'string' && id.length > 0 ? id : 'default';
}

/**
 * Baton for the Vercel AI SDK. Options are the core's (validated with zod; a bad one throws
 * `BatonConfigError`).
 *
 * @example
 * const baton = createBaton({ model: 'gpt-4o', pinnedTools: ['load_skill'] });
 * const session = baton.session('chat-42');
 * const result = await generateText({
 *   model: wrapLanguageModel({ model: openai('gpt-4o'), middleware: session.middleware }),
 *   tools: { ...myTools, ...session.tools },
 *   stopWhen: stepCountIs(200),
 *   prompt,
 * });
 */
export function createBaton(options: BatonOptions): AiSdkBaton {
  const userOnEvent = options.onEvent;
  void loadTelemetry();
  const core = createCoreBaton({
    ...options,
    onEvent: (event) => {
      recordSpanEvent(event);
      userOnEvent?.(event);
    },
  });
  const sessions = new Map<string, AiSdkSession>();
  const session = (id: string): AiSdkSession => {
    let found = sessions.get(id);
    if (!found) {
      const coreSession = core.session(id);
      found = {
        id,
        core: coreSession,
        middleware: batonMiddleware(() => coreSession),
        tools: batonTools(coreSession),
        prepareStep: batonPrepareStep(coreSession),
      };
      sessions.set(id, found);
    }
    return found;
  };
  return {
    core,
    session,
    middleware: batonMiddleware((params) => core.session(sessionIdOf(params.providerOptions))),
  };
}

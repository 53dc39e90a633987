import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import {
  type Baton,
  type BatonOptions,
  BatonSessionError,
  type BatonSettings,
  createBaton as createCoreBaton,
  type Session,
  type WindowedSettings,
  type WindowGiven,
} from '@baton/core';
import type { ToolSet } from 'ai';
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
  /**
   * Rewrite mode for agent loops (`prepareStep`): use instead of the middleware. Counts the
   * tools of the step before (Baton's own on the first step); `prepareStepFor(tools)` counts
   * the loop's tools from the first step.
   */
  readonly prepareStep: ReturnType<typeof batonPrepareStep>;
  /** `prepareStep` that counts these tools (the ones given to `generateText`) from the first step. */
  prepareStepFor(tools: ToolSet): ReturnType<typeof batonPrepareStep>;
}

export interface AiSdkBaton<Settings extends BatonSettings = BatonSettings> {
  readonly core: Baton<Settings>;
  /** The session for a conversation id (the same object for the same id while it is in use). */
  session(id: string): AiSdkSession;
  /**
   * One middleware for many conversations: the session id comes from
   * `providerOptions: { baton: { sessionId } }` of each call. A call without one is refused
   * with `BatonSessionError`: conversations never share a default session.
   */
  readonly middleware: LanguageModelV4Middleware;
}

function sessionIdOf(providerOptions: unknown): string {
  const id = (providerOptions as { baton?: { sessionId?: unknown } } | undefined)?.baton?.sessionId;
  if (typeof id === 'string' && id.length > 0) return id;
  throw new BatonSessionError(
    'ai-sdk',
    "pass providerOptions: { baton: { sessionId: '<conversation id>' } } to generateText / streamText, or wrap the model with baton.session(id).middleware",
  );
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
export function createBaton(options: BatonOptions & WindowGiven): AiSdkBaton<WindowedSettings>;
export function createBaton(options: BatonOptions): AiSdkBaton;
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
  // Keyed by the core's session object: when the core drops an idle session (maxSessions),
  // its wrapper goes with it instead of growing a second, unbounded map here.
  const wrappers = new WeakMap<Session, AiSdkSession>();
  const session = (id: string): AiSdkSession => {
    const coreSession = core.session(id);
    let found = wrappers.get(coreSession);
    if (!found) {
      found = {
        id,
        core: coreSession,
        middleware: batonMiddleware(() => coreSession),
        tools: batonTools(coreSession),
        prepareStep: batonPrepareStep(coreSession),
        prepareStepFor: (tools) => batonPrepareStep(coreSession, { tools }),
      };
      wrappers.set(coreSession, found);
    }
    return found;
  };
  return {
    core,
    session,
    middleware: batonMiddleware((params) => core.session(sessionIdOf(params.providerOptions))),
  };
}

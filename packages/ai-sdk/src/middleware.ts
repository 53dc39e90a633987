import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
} from '@ai-sdk/provider';
import type { Prepared, Session } from '@baton/core';
import { type GuardedCall, guardedGenerate, guardedStream, projectCall } from './call-guard.ts';

interface CallRecord {
  session: Session;
  original: LanguageModelV4CallOptions;
  model: LanguageModelV4;
  prepared: Prepared;
}

/**
 * The view-mode middleware: before every model call the SDK's full prompt is projected
 * through `session.prepare` (the SDK's own history is never changed), the notes go in a
 * system message after the host's (re-rendered only at a compaction), this step's notices in
 * a last user message, the provider's usage calibrates the count, and a
 * context-overflow error is recovered once (compact harder, retry through the inner model)
 * before it becomes an `unfit` step. An `unfit` outcome never calls the model.
 *
 * Most code takes it ready-made from `createBaton(options).session(id).middleware`; this
 * factory is for a session resolved per call.
 *
 * @example
 * ```ts
 * import { batonMiddleware, createBaton } from '@baton/ai-sdk';
 * import { wrapLanguageModel } from 'ai';
 *
 * const baton = createBaton({ model: 'gpt-4o' });
 * const model = wrapLanguageModel({
 *   model: openai('gpt-4o'),
 *   middleware: batonMiddleware((call) => baton.core.session(String(call.headers?.['x-chat-id']))),
 * });
 * ```
 */
export function batonMiddleware(
  resolveSession: (params: LanguageModelV4CallOptions) => Session,
): LanguageModelV4Middleware {
  // Projected params -> the call they came from, until the wrapped call takes its record. Taken
  // out then: a record holds the host's whole prompt, and anything that keeps the params it was
  // handed (a mock or a logger recording every call) would otherwise keep every call's history
  // alive through this map (measured: 1.2 MB per call of a 2,000-message run, gigabytes by its end).
  const calls = new WeakMap<LanguageModelV4CallOptions, CallRecord>();
  const take = (params: LanguageModelV4CallOptions): CallRecord | undefined => {
    const record = calls.get(params);
    calls.delete(params);
    return record;
  };

  async function project(
    session: Session,
    original: LanguageModelV4CallOptions,
    model: LanguageModelV4,
  ): Promise<LanguageModelV4CallOptions> {
    const { prepared, params } = await projectCall(session, original, model);
    calls.set(params, { session, original, model, prepared });
    return params;
  }

  /** The call as the guard runs it: a retry re-projects the original call through the inner model. */
  function guarded(record: CallRecord): GuardedCall {
    return {
      session: record.session,
      prepared: record.prepared,
      retry: async () => {
        const params = await project(record.session, record.original, record.model);
        return { prepared: take(params)!.prepared, params };
      },
    };
  }

  return {
    specificationVersion: 'v4',
    transformParams: async function batonTransformParams({ params, model }) {
      return project(resolveSession(params), params, model);
    },
    wrapGenerate: async function batonWrapGenerate({ doGenerate, params, model }) {
      const record = take(params);
      if (!record) return doGenerate();
      return guardedGenerate(guarded(record), doGenerate, (retry) => model.doGenerate(retry));
    },
    wrapStream: async function batonWrapStream({ doStream, params, model }) {
      const record = take(params);
      if (!record) return doStream();
      return guardedStream(guarded(record), doStream, (retry) => model.doStream(retry));
    },
  };
}

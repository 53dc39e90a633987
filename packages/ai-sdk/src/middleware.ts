import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import type { Prepared, Session, ToolSchema } from '@baton/core';
import {
  callWithOverflowRecovery,
  entriesToPrompt as fromEntries,
  type PromptMessage as HostMessage,
  promptToEntries as toEntries,
  type UnfitInfo,
  withSystemBlock,
} from '@baton/core/internals';
import { hostModel } from './host-model.ts';
import { unfitGenerateResult, unfitStreamResult } from './unfit-result.ts';

interface CallRecord {
  session: Session;
  original: LanguageModelV4CallOptions;
  model: LanguageModelV4;
  prepared: Prepared;
}

function toolSchemas(tools: LanguageModelV4CallOptions['tools']): ToolSchema[] | undefined {
  return tools?.map((tool) =>
    tool.type === 'function'
      ? { name: tool.name, description: tool.description, inputSchema: tool.inputSchema }
      : { name: tool.name, inputSchema: tool.args },
  );
}

/** Input tokens a provider reported, whatever the usage shape. */
function reportedInputTokens(usage: unknown): number | undefined {
  const input = (usage as { inputTokens?: unknown } | undefined)?.inputTokens;
  if (typeof input === 'number') return input;
  const total = (input as { total?: unknown } | undefined)?.total;
  return typeof total === 'number' ? total : undefined;
}

/**
 * The view-mode middleware: before every model call the SDK's full prompt is projected
 * through `session.prepare` (the SDK's own history is never changed), notes and notices go
 * in a system message after the host's, the provider's usage calibrates the count, and a
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
  const calls = new WeakMap<LanguageModelV4CallOptions, CallRecord>();

  async function project(
    session: Session,
    original: LanguageModelV4CallOptions,
    model: LanguageModelV4,
  ): Promise<LanguageModelV4CallOptions> {
    const tools = toolSchemas(original.tools);
    const prepared = await session.prepare({
      entries: toEntries(original.prompt as HostMessage[]),
      ...(tools ? { tools } : {}),
      model: hostModel(model),
    });
    const prompt = withSystemBlock(fromEntries(prepared.entries), prepared.system) as LanguageModelV4Prompt;
    const params: LanguageModelV4CallOptions = { ...original, prompt };
    calls.set(params, { session, original, model, prepared });
    return params;
  }

  /** Runs the call under the core's overflow policy; the retry goes through the inner model directly. */
  function recovering<T>(
    record: CallRecord,
    params: LanguageModelV4CallOptions,
    first: () => PromiseLike<T>,
    retry: (params: LanguageModelV4CallOptions) => PromiseLike<T>,
    unfit: (info: UnfitInfo) => T,
  ): Promise<T> {
    return callWithOverflowRecovery(record.session, {
      attempt: params,
      prepared: (attempt) => calls.get(attempt)!.prepared,
      reprepare: () => project(record.session, record.original, record.model),
      call: (attempt, isRetry) => (isRetry ? retry(attempt) : first()),
      unfit,
    });
  }

  return {
    specificationVersion: 'v4',
    transformParams: async function batonTransformParams({ params, model }) {
      return project(resolveSession(params), params, model);
    },
    wrapGenerate: async function batonWrapGenerate({ doGenerate, params, model }) {
      const record = calls.get(params);
      if (!record) return doGenerate();
      const result = await recovering(
        record,
        params,
        doGenerate,
        (p) => model.doGenerate(p),
        unfitGenerateResult,
      );
      const input = reportedInputTokens(result.usage);
      if (input !== undefined && result.finishReason.raw !== 'baton-unfit')
        record.session.observeUsage({ inputTokens: input });
      return result;
    },
    wrapStream: async function batonWrapStream({ doStream, params, model }) {
      const record = calls.get(params);
      if (!record) return doStream();
      const result = await recovering(record, params, doStream, (p) => model.doStream(p), unfitStreamResult);
      // Usage arrives with the finish part: feed it to the calibration as it passes.
      const observe = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish' && part.finishReason.raw !== 'baton-unfit') {
            const input = reportedInputTokens(part.usage);
            if (input !== undefined) record.session.observeUsage({ inputTokens: input });
          }
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(observe) };
    },
  };
}

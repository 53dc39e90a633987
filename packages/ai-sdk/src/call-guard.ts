import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { Prepared, Session, ToolSchema } from '@baton/core';
import {
  callWithOverflowRecovery,
  entriesToPrompt,
  type PromptMessage,
  promptToEntries,
  withSystemBlock,
  withTrailer,
} from '@baton/core/internals';
import { hostModel } from './host-model.ts';
import { withCacheHints } from './prompt-cache.ts';
import { unfitGenerateResult, unfitStreamResult } from './unfit-result.ts';

/**
 * One model call Baton prepared, in either mode: the projection it sends, and how to build
 * a harder-compacted one when the provider rejects it as too long.
 */
export interface GuardedCall {
  session: Session;
  prepared: Prepared;
  retry(): Promise<{ prepared: Prepared; params: LanguageModelV4CallOptions }>;
}

interface Attempt {
  prepared: Prepared;
  params?: LanguageModelV4CallOptions;
}

/** The SDK's tool definitions as the core counts them: name, description and full input schema. */
export function toolSchemas(tools: LanguageModelV4CallOptions['tools']): ToolSchema[] | undefined {
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
 * A call's prompt projected through `session.prepare` (view mode: a new prompt, the SDK's
 * history untouched); Baton's notes block goes in a system message after the host's, this
 * step's notices in a last user message after the conversation. A block or trailer already
 * in the prompt (a rewrite-mode step) is dropped and rendered afresh.
 */
export async function projectCall(
  session: Session,
  original: LanguageModelV4CallOptions,
  model: LanguageModelV4,
): Promise<{ prepared: Prepared; params: LanguageModelV4CallOptions }> {
  const tools = toolSchemas(original.tools);
  const prepared = await session.prepare({
    entries: promptToEntries(original.prompt as PromptMessage[]),
    ...(tools ? { tools } : {}),
    model: hostModel(model),
  });
  const prompt = withTrailer(
    withSystemBlock(entriesToPrompt(prepared.entries), prepared.system),
    prepared.trailer,
  ) as LanguageModelV4Prompt;
  return { prepared, params: withCacheHints(session, model, prepared, { ...original, prompt }) };
}

function underPolicy<T>(
  call: GuardedCall,
  first: () => PromiseLike<T>,
  again: (params: LanguageModelV4CallOptions) => PromiseLike<T>,
  unfit: (info: Parameters<typeof unfitGenerateResult>[0]) => T,
): Promise<T> {
  return callWithOverflowRecovery<Attempt, T>(call.session, {
    attempt: { prepared: call.prepared },
    prepared: (attempt) => attempt.prepared,
    reprepare: () => call.retry(),
    call: (attempt, isRetry) => (isRetry && attempt.params ? again(attempt.params) : first()),
    unfit,
  });
}

/**
 * `doGenerate` under the core's overflow policy: an unfit projection never calls the model,
 * a context-length error is retried once with a harder compaction (through `again`, the
 * inner model), a second one ends the step as unfit; the reported usage calibrates the count.
 */
export async function guardedGenerate(
  call: GuardedCall,
  first: () => PromiseLike<LanguageModelV4GenerateResult>,
  again: (params: LanguageModelV4CallOptions) => PromiseLike<LanguageModelV4GenerateResult>,
): Promise<LanguageModelV4GenerateResult> {
  const result = await underPolicy(call, first, again, unfitGenerateResult);
  const input = reportedInputTokens(result.usage);
  if (input !== undefined && result.finishReason.raw !== 'baton-unfit')
    call.session.observeUsage({ inputTokens: input });
  return result;
}

/** `doStream` under the same policy; usage arrives with the finish part and calibrates as it passes. */
export async function guardedStream(
  call: GuardedCall,
  first: () => PromiseLike<LanguageModelV4StreamResult>,
  again: (params: LanguageModelV4CallOptions) => PromiseLike<LanguageModelV4StreamResult>,
): Promise<LanguageModelV4StreamResult> {
  const result = await underPolicy(call, first, again, unfitStreamResult);
  const observe = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
    transform(part, controller) {
      if (part.type === 'finish' && part.finishReason.raw !== 'baton-unfit') {
        const input = reportedInputTokens(part.usage);
        if (input !== undefined) call.session.observeUsage({ inputTokens: input });
      }
      controller.enqueue(part);
    },
  });
  return { ...result, stream: result.stream.pipeThrough(observe) };
}

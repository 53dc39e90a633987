import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { Prepared, Session, ToolSchema } from '@baton/core';
import {
  type PromptConversionCache as ConversionCache,
  entriesToPrompt as fromEntries,
  type PromptMessage as HostMessage,
  isBatonBlock,
  promptToEntries as toEntries,
  type UnfitInfo,
  unfitOf,
  withTrailer,
} from '@baton/core/internals';
import {
  asSchema,
  type Instructions,
  type LanguageModel,
  type ModelMessage,
  type SystemModelMessage,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';
import { z } from 'zod/v4';
import { type GuardedCall, guardedGenerate, guardedStream, projectCall, toolSchemas } from './call-guard.ts';
import { hostModel } from './host-model.ts';
import { withCacheHints } from './prompt-cache.ts';
import { unfitGenerateResult, unfitStreamResult } from './unfit-result.ts';

function instructionsText(instructions: Instructions | undefined): string {
  if (instructions === undefined) return '';
  if (typeof instructions === 'string') return instructions;
  const list = Array.isArray(instructions) ? instructions : [instructions];
  return list
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n\n');
}

/**
 * The host's instructions with Baton's block as one more system message after them (its own
 * message, so a re-projection of the step's prompt recognises and drops it).
 */
function withBlock(instructions: Instructions | undefined, block: string): Instructions {
  const host: SystemModelMessage[] =
    instructions === undefined
      ? []
      : typeof instructions === 'string'
        ? instructions.length > 0
          ? [{ role: 'system', content: instructions }]
          : []
        : Array.isArray(instructions)
          ? instructions
          : [instructions];
  return block.length > 0 ? [...host, { role: 'system', content: block }] : host;
}

/** Tool definitions of a `ToolSet` as the core counts them (name, description, JSON schema). */
async function toolSetSchemas(tools: ToolSet): Promise<ToolSchema[]> {
  return Promise.all(
    Object.entries(tools).map(async ([name, tool]) => ({
      name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      inputSchema: await asSchema(tool.inputSchema).jsonSchema,
    })),
  );
}

/** A model for a step that must not reach the provider: it answers with the unfit message. */
function unfitModel(info: UnfitInfo): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'baton',
    modelId: 'unfit',
    supportedUrls: {},
    doGenerate: async () => unfitGenerateResult(info),
    doStream: async () => unfitStreamResult(info),
  };
}

const isModelObject = (model: unknown): model is LanguageModelV4 =>
  typeof model === 'object' && model !== null && 'doGenerate' in model;

export interface PrepareStepOptions {
  /**
   * The `tools` given to `generateText` / `ToolLoopAgent`, so their schemas count from the
   * first step. Without it the first step counts Baton's own tools, and each later step the
   * tools of the call before it (the step's model records them).
   */
  tools?: ToolSet;
}

/**
 * Rewrite mode for agent loops: each step's messages go through `prepare`; when the
 * projection differs (a compaction) the step gets a `messages` override, which the SDK
 * carries forward as the new history, archive written first. Baton's notes block replaces
 * the one of the step before in `instructions`, never accumulates (it changes only at a
 * compaction, so the cached prefix holds). This step's notices go in a last user message of
 * this call only (with a model id string instead of a model object they ride in the
 * `messages` override and the next step takes them out). The step's model
 * is wrapped: an `unfit` projection never reaches the provider (the step answers with the
 * unfit message, as the middleware does), a context-length error is retried once after a
 * harder compaction, and the reported usage calibrates the count. Use it instead of the
 * middleware.
 *
 * @example
 * ```ts
 * import { createBaton } from '@baton/ai-sdk';
 * import { generateText, stepCountIs } from 'ai';
 *
 * const session = createBaton({ model: 'gpt-4o' }).session('ticket-4411');
 * const tools = { ...myTools, ...session.tools };
 * await generateText({
 *   model: openai('gpt-4o'), // not wrapped: prepareStep rewrites the history instead
 *   tools,
 *   prepareStep: session.prepareStepFor(tools),
 *   stopWhen: stepCountIs(200),
 *   prompt,
 * });
 * ```
 */
export function batonPrepareStep(session: Session, options: PrepareStepOptions = {}) {
  const cache: ConversionCache = { entries: new WeakMap() };
  const declared = options.tools ? toolSetSchemas(options.tools) : undefined;
  // Before any call was seen: Baton's own tools at least, which every step carries.
  const own: ToolSchema[] = session.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema),
  }));
  /** Tools the last step's model call carried (the SDK's own definitions). */
  let observed: ToolSchema[] | undefined;
  /** What this hook returned last, and the host's instructions under it. */
  let last: { returned: Instructions; host: Instructions | undefined } | undefined;

  function guard(model: LanguageModelV4, prepared: Prepared): LanguageModel {
    // A retry re-projects the step's own call, not the one Baton's cache hints were added to.
    const unhinted = new WeakMap<LanguageModelV4CallOptions, LanguageModelV4CallOptions>();
    const callOf = (params: LanguageModelV4CallOptions): GuardedCall => ({
      session,
      prepared,
      retry: () => projectCall(session, unhinted.get(params) ?? params, model),
    });
    return wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v4',
        // The step's notices go after the conversation in this call only: the SDK's history never keeps them.
        transformParams: async ({ params }) => {
          const hinted = withCacheHints(session, model, prepared, {
            ...params,
            prompt: withTrailer(
              params.prompt as HostMessage[],
              prepared.trailer,
            ) as LanguageModelV4CallOptions['prompt'],
          });
          unhinted.set(hinted, params);
          return hinted;
        },
        wrapGenerate: async function batonStepGenerate({ doGenerate, params }) {
          observed = toolSchemas(params.tools);
          return guardedGenerate(callOf(params), doGenerate, (retry) => model.doGenerate(retry));
        },
        wrapStream: async function batonStepStream({ doStream, params }) {
          observed = toolSchemas(params.tools);
          return guardedStream(callOf(params), doStream, (retry) => model.doStream(retry));
        },
      },
    });
  }

  return async function batonPrepareStepHook({
    messages,
    instructions,
    model,
  }: {
    messages: ModelMessage[];
    instructions?: Instructions | undefined;
    model?: unknown;
  }): Promise<{ messages?: ModelMessage[]; instructions: Instructions; model?: LanguageModel }> {
    // The SDK carries this hook's instructions forward: under them are the host's own.
    const host = last !== undefined && instructions === last.returned ? last.host : instructions;
    const tools = (await declared) ?? observed ?? own;
    const prepared = await session.prepare({
      entries: toEntries(messages as HostMessage[], cache),
      system: instructionsText(host),
      tools,
      // A model object (not a gateway id string) can answer probes and write summaries.
      ...(isModelObject(model) ? { model: hostModel(model) } : {}),
    });

    const returned = withBlock(host, prepared.block);
    last = { returned, host };
    const unfit = unfitOf(prepared);
    if (unfit) return { instructions: returned, model: unfitModel(unfit) };
    if (isModelObject(model)) {
      return {
        ...(prepared.changed ? { messages: fromEntries(prepared.entries, cache) as ModelMessage[] } : {}),
        instructions: returned,
        model: guard(model, prepared),
      };
    }
    // A model id (a gateway string) cannot be wrapped: the notices ride in the messages, which
    // the SDK carries forward, so the next step takes the carried trailer out again.
    const carried = (messages as HostMessage[]).some((m) => m.role === 'user' && isBatonBlock(m));
    const rewrite = prepared.changed || carried || prepared.trailer.length > 0;
    return {
      ...(rewrite
        ? { messages: withTrailer(fromEntries(prepared.entries, cache), prepared.trailer) as ModelMessage[] }
        : {}),
      instructions: returned,
    };
  };
}

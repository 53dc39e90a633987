import { type BatonSettings, type CallOutput, resolveCallBudget } from '@baton/core';

/**
 * The model id, provider and output limit of a Mastra step, from `processInputStep`'s `model`
 * (an AI SDK model keeps its `modelId` and `provider`, e.g. `anthropic.messages`) and
 * `modelSettings.maxOutputTokens` (what Mastra passes to the model as its output limit).
 *
 * @example
 * stepOutputOf(args.model, args.modelSettings); // { modelId: 'claude-sonnet-4-5', provider: 'anthropic.messages' }
 */
export function stepOutputOf(
  model: unknown,
  settings: { maxOutputTokens?: unknown } | undefined,
): CallOutput {
  const fields = (typeof model === 'object' && model !== null ? model : {}) as {
    modelId?: unknown;
    provider?: unknown;
  };
  const id = typeof model === 'string' ? model : fields.modelId;
  const limit = settings?.maxOutputTokens;
  return {
    ...(typeof id === 'string' && id.length > 0 ? { modelId: id } : {}),
    ...(typeof fields.provider === 'string' ? { provider: fields.provider } : {}),
    ...(typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? { maxOutputTokens: limit } : {}),
  };
}

/**
 * The output limit this step's `modelSettings` must carry, where Baton lowers the provider
 * package's default (it cannot fit the window beside the prompt): the same pure decision the
 * step's `prepare` makes (`resolveCallBudget`). Undefined when nothing is lowered, or when the
 * step has no window Baton knows (its `prepare` reports that, with a typed error).
 */
export function stepOutputCap(settings: BatonSettings, output: CallOutput): number | undefined {
  try {
    return resolveCallBudget(settings, output).outputCap;
  } catch {
    return undefined;
  }
}

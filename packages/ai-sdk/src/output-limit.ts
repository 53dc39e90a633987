import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';

/**
 * Output tokens `@ai-sdk/anthropic` adds to `max_tokens` for extended thinking: with
 * `providerOptions.anthropic.thinking: { type: 'enabled', budgetTokens }` it sends
 * `maxOutputTokens + budgetTokens` (1,024 when the budget is unset; 4.0.105, capped at the
 * model's limit). 0 for other providers and other thinking modes.
 */
function thinkingBudget(model: LanguageModelV4, params: LanguageModelV4CallOptions): number {
  if (!/(^|\.)anthropic\.messages$/.test(model.provider)) return 0;
  const thinking = (
    params.providerOptions?.anthropic as { thinking?: { type?: unknown; budgetTokens?: unknown } }
  )?.thinking;
  if (thinking?.type !== 'enabled') return 0;
  return typeof thinking.budgetTokens === 'number' ? thinking.budgetTokens : 1_024;
}

/**
 * The output limit the call's request will carry when the call sets one (`maxOutputTokens`,
 * plus Anthropic's thinking budget); undefined when the provider package's default applies.
 */
export function requestedOutput(
  model: LanguageModelV4,
  params: LanguageModelV4CallOptions,
): number | undefined {
  const limit = params.maxOutputTokens;
  return limit === undefined ? undefined : limit + thinkingBudget(model, params);
}

/**
 * The call with its output limit lowered so that the request carries at most `cap` tokens
 * (`Prepared.maxOutputTokens`): Anthropic's thinking budget is part of what it sends.
 */
export function withOutputCap(
  model: LanguageModelV4,
  params: LanguageModelV4CallOptions,
  cap: number | undefined,
): LanguageModelV4CallOptions {
  if (cap === undefined) return params;
  return { ...params, maxOutputTokens: Math.max(1, cap - thinkingBudget(model, params)) };
}

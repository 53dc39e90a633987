import { costMeter, type ModelPricing, type PromptBlock, tokenPricing } from '@baton/core';

/** The policies a replay compares, by the key their step records and chart series use. */
export type PolicyKey = 'baton' | 'none' | 'interval' | 'deleteOldest';

export const POLICY_KEYS: readonly PolicyKey[] = ['baton', 'none', 'interval', 'deleteOldest'];

/**
 * The shortest prefix OpenAI and Anthropic cache (1,024 tokens for GPT-4o and Claude Sonnet;
 * some smaller models need more): a shorter shared prefix is billed as new input.
 */
export const MIN_CACHED_TOKENS = 1_024;

/** What one policy's model calls cost over a replay. */
export interface PolicyCosts {
  /** Model calls billed: one per step, plus Baton's probes. */
  calls: number;
  /** Input-token equivalents: new input at 1, cached reads at 0.1. */
  cacheAdjusted: number;
  /** The same with cache writes at 1.25 (Anthropic's premium for writing the cache). */
  cacheAdjustedWrite: number;
  /** USD at the model's registry prices, output included; absent when the model has none. */
  usd?: number;
  /** Cached input tokens / input tokens. */
  cachedShare: number;
}

/** One policy's meters, one per currency, billed together so their caches see the same calls. */
export interface PolicyBilling {
  /** Bills one model call in every currency; returns its cost in input-token equivalents (reads at 0.1). */
  bill(prompt: readonly PromptBlock[], outputTokens: number): number;
  costs(): PolicyCosts;
}

/**
 * Meters for one policy: input-token equivalents with cached reads at 0.1x (`tokenPricing()`),
 * the same with writes at 1.25x, and USD when `usd` prices are known. Each policy has its own
 * meters: a policy's prompts only ever hit its own cache.
 *
 * @example
 * const billing = policyBilling(baton.options.pricing);
 * billing.bill(promptBlocks(prepared, counter), counter.raw(reply));
 * billing.costs().cachedShare;
 */
export function policyBilling(usd: ModelPricing | undefined): PolicyBilling {
  const meter = (pricing: ModelPricing) => costMeter({ pricing, minCachedTokens: MIN_CACHED_TOKENS });
  const read = meter(tokenPricing());
  const write = meter(tokenPricing({ cacheWrite: 1.25 }));
  const dollars = usd ? meter(usd) : undefined;
  return {
    bill(prompt, outputTokens) {
      write.bill({ prompt, outputTokens });
      dollars?.bill({ prompt, outputTokens });
      return read.bill({ prompt, outputTokens }).cost;
    },
    costs() {
      const { calls, cost, cachedTokens, inputTokens } = read.totals;
      return {
        calls,
        cacheAdjusted: cost,
        cacheAdjustedWrite: write.totals.cost,
        ...(dollars ? { usd: dollars.totals.cost } : {}),
        cachedShare: inputTokens === 0 ? 0 : cachedTokens / inputTokens,
      };
    },
  };
}

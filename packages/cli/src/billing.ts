import {
  type BilledCall,
  type CacheRules,
  cacheRulesFor,
  costMeter,
  type ModelPricing,
  type PromptBlock,
  prefixCacheRules,
  tokenPricing,
} from '@baton/core';
import { withoutBreakpoints } from './breakpoints.ts';

/** The policies a replay compares, by the key their step records and chart series use. */
export type PolicyKey = 'baton' | 'none' | 'interval' | 'deleteOldest';

export const POLICY_KEYS: readonly PolicyKey[] = ['baton', 'none', 'interval', 'deleteOldest'];

/**
 * The shortest prefix the provider-neutral columns cache (OpenAI's 1,024 tokens, Anthropic's for
 * Sonnet): a shorter shared prefix is billed as new input.
 */
export const MIN_CACHED_TOKENS = 1_024;

/** A replay has no clock: its model calls are taken as this far apart (well inside every cache lifetime). */
export const CALL_INTERVAL_MS = 5_000;

/**
 * The rules a model's bill is computed by: its provider's (`cacheRulesFor`), or, for a provider
 * whose rules are not modelled, any shared prefix from 1,024 tokens at the model's cache price.
 */
export function billingRules(model: string | undefined): CacheRules {
  const rules = model ? cacheRulesFor(model) : undefined;
  if (rules) return rules;
  const neutral = prefixCacheRules({ minTokens: MIN_CACHED_TOKENS });
  return {
    ...neutral,
    chargeWrites: false,
    description: `${model ? `no provider rules modelled for ${model}` : 'no model named'}: any shared prefix from 1,024 tokens read from the cache, no write fee`,
  };
}

/** What one policy's model calls cost over a replay. */
export interface PolicyCosts {
  /** Model calls billed: one per step, plus Baton's probes. */
  calls: number;
  /** Provider-neutral input-token equivalents: any shared prefix from 1,024 tokens read at 0.1, new input at 1. */
  cacheAdjusted: number;
  /** The same with every uncached token written at 1.25. */
  cacheAdjustedWrite: number;
  /** Cached input tokens / input tokens, provider-neutral. */
  cachedShare: number;
  /**
   * USD under the model's provider's rules (`billingRules`), output included, with breakpoints
   * where Baton places them (where the provider caches only up to breakpoints); absent when the
   * model has no prices.
   */
  usd?: number;
  /** The same when the host sets no breakpoints (equal to `usd` under automatic caching). */
  usdNoBreakpoints?: number;
  /** Input read from the cache / input, under the provider's rules with Baton's breakpoints. */
  billedCachedShare: number;
  /** The same with no breakpoints. */
  billedCachedShareNoBreakpoints: number;
}

/** One policy's meters, billed together so their caches see the same calls. */
export interface PolicyBilling {
  /**
   * Bills one model call, its prompt marked with the breakpoints Baton would place, at `at` ms.
   * Returns its provider-neutral cost (input-token equivalents) and its bill under the rules.
   */
  bill(
    prompt: readonly PromptBlock[],
    outputTokens: number,
    at: number,
  ): { cost: number; billed: BilledCall };
  costs(): PolicyCosts;
}

/**
 * Meters for one policy: provider-neutral input-token equivalents (cached reads at 0.1x, and the
 * same with writes at 1.25x), and the bill under `rules` at `pricing` twice, with the prompt's
 * breakpoints and without any. Unpriced, the bill is counted in tokens and `usd` is left out.
 * Each policy has its own meters: a policy's prompts only ever hit its own cache.
 *
 * @example
 * const billing = policyBilling(baton.options.pricing, billingRules('claude-sonnet-4-5'));
 * billing.bill(batonPromptBlocks(prepared, counter), counter.raw(reply), step * CALL_INTERVAL_MS);
 * billing.costs().billedCachedShare;
 */
export function policyBilling(pricing: ModelPricing | undefined, rules: CacheRules): PolicyBilling {
  const neutral = (p: ModelPricing) => costMeter({ pricing: p, minCachedTokens: MIN_CACHED_TOKENS });
  const read = neutral(tokenPricing());
  const write = neutral(tokenPricing({ cacheWrite: 1.25 }));
  const billedPricing = pricing ?? { input: 1_000_000, output: 0 };
  const marked = costMeter({ pricing: billedPricing, rules });
  const bare = costMeter({ pricing: billedPricing, rules });
  const share = (t: { cachedTokens: number; inputTokens: number }) =>
    t.inputTokens === 0 ? 0 : t.cachedTokens / t.inputTokens;
  return {
    bill(prompt, outputTokens, at) {
      write.bill({ prompt, outputTokens, at });
      bare.bill({ prompt: withoutBreakpoints(prompt), outputTokens, at });
      const billed = marked.bill({ prompt, outputTokens, at });
      return { cost: read.bill({ prompt, outputTokens, at }).cost, billed };
    },
    costs() {
      return {
        calls: read.totals.calls,
        cacheAdjusted: read.totals.cost,
        cacheAdjustedWrite: write.totals.cost,
        cachedShare: share(read.totals),
        ...(pricing ? { usd: marked.totals.cost, usdNoBreakpoints: bare.totals.cost } : {}),
        billedCachedShare: share(marked.totals),
        billedCachedShareNoBreakpoints: share(bare.totals),
      };
    },
  };
}

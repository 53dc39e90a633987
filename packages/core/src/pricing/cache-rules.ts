/**
 * How each provider's prompt cache decides what a request reads from the cache, what it
 * writes, and at what price: the rules `costMeter` bills by. Facts from the providers' own
 * documentation, checked on 2026-12-02:
 * - Anthropic, https://platform.claude.com/docs/en/build-with-claude/prompt-caching: a prefix
 *   (tools, system, messages, in that order) is cached only up to a block marked
 *   `cache_control`, at most 4 per request; a later request reads it only at one of its own
 *   breakpoints or at a block boundary up to 20 blocks before one; nothing is cached below the
 *   model's minimum (1,024 tokens for Sonnet 4 / 4.5 / 4.6 and Opus 4 / 4.1, 4,096 for Opus 4.5 /
 *   4.6 and Haiku 4.5, 2,048 for Haiku 3 / 3.5: the docs' table as quoted in
 *   anthropics/anthropic-sdk-python#1194, and LiteLLM's prompt-caching page of 2026-10-07);
 *   entries live 5 minutes (written at 1.25x base input) or 1 hour (2x), refreshed free on each
 *   hit; hits cost 0.1x. A request that marks nothing caches nothing (the top-level automatic
 *   `cache_control` is a breakpoint on the last block: mark it so).
 * - OpenAI, https://developers.openai.com/api/docs/guides/prompt-caching (and the Prompt Caching
 *   201 cookbook): automatic for prompts of 1,024 tokens or more, hits in increments of 128
 *   tokens (1,024, 1,152, ...), no fee for writing; cached input at the model's cached price
 *   (0.5x for GPT-4o and o1, 0.25x for GPT-4.1 and o3 / o4-mini, 0.1x for GPT-5); cleared after
 *   5 to 10 minutes of inactivity.
 * - Gemini, https://ai.google.dev/gemini-api/docs/caching (updated 2026-10-23): implicit
 *   caching on every Gemini 2.5 and newer model, no fee for writing; minimum 2,048 tokens for
 *   2.5 Flash and 2.5 Pro, 4,096 for the 3.x models; hits at the model's cached price. Its
 *   lifetime is not documented ("send requests with similar prefix in a short amount of time"):
 *   5 minutes here. Older Gemini models have no implicit cache.
 */
import { dashedVersions, type ModelPricing } from './model-catalog.ts';

/** An Anthropic cache entry's lifetime: `'5m'` (the default) or `'1h'`. */
export type CacheTtl = '5m' | '1h';

/** Lifetimes in milliseconds. */
export const CACHE_TTL_MS: Readonly<Record<CacheTtl, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/**
 * Explicit breakpoints (Anthropic `cache_control`; Bedrock `cachePoint` works alike): a request
 * writes its prefix up to each breakpoint it marks, and reads an earlier entry only at one of
 * its breakpoints or a block boundary within `lookbackBlocks` before one.
 */
export interface BreakpointCacheRules {
  kind: 'breakpoints';
  /** Who bills this way, for reports: `'anthropic'`. */
  provider: string;
  /** What a report says it billed by. */
  description: string;
  /** Shortest prefix a breakpoint caches, in tokens. */
  minTokens: number;
  /** Content blocks before a breakpoint where an earlier entry is still found. */
  lookbackBlocks: number;
  /** Breakpoints a request may mark; more is refused by the provider. */
  maxBreakpoints: number;
  /** Write price per lifetime, as a multiple of base input (used where the pricing gives none). */
  writeMultiplier: Readonly<Record<CacheTtl, number>>;
  /** Read price as a multiple of base input (used where the pricing gives no `cacheRead`). */
  readMultiplier: number;
}

/**
 * Automatic prefix caching (OpenAI, Gemini): every prompt is cached as sent; a later prompt
 * reads the longest prefix it shares with a live one, rounded down to the provider's increment.
 */
export interface AutomaticCacheRules {
  kind: 'automatic';
  provider: string;
  description: string;
  /** Shortest prefix read from the cache, in tokens. */
  minTokens: number;
  /** Hits count in steps of this many tokens from `minTokens` (OpenAI: 128); 1 for exact. */
  increment: number;
  /** How long a prompt stays cached after its last use. */
  ttlMs: number;
  /** Read price as a multiple of base input where the pricing gives no `cacheRead`. */
  readMultiplier: number;
  /**
   * Whether uncached input is billed at the pricing's `cacheWrite` and reported as written
   * (a provider-neutral model where every new token is a write); false where writing is free.
   */
  chargeWrites: boolean;
}

/** No prompt cache (older Gemini models): every input token at the input price. */
export interface NoCacheRules {
  kind: 'none';
  provider: string;
  description: string;
}

export type CacheRules = BreakpointCacheRules | AutomaticCacheRules | NoCacheRules;

/**
 * Anthropic's rules for a model's minimum cacheable prefix.
 *
 * @example anthropicCacheRules({ minTokens: 4_096 }) // Claude Haiku 4.5
 */
export function anthropicCacheRules({
  minTokens = 1_024,
}: {
  minTokens?: number;
} = {}): BreakpointCacheRules {
  return {
    kind: 'breakpoints',
    provider: 'anthropic',
    description: `Anthropic prompt caching: read and written only at cache_control breakpoints (at most 4, 20-block lookback), prefixes from ${minTokens.toLocaleString('en-US')} tokens, writes 1.25x (5 minutes) or 2x (1 hour), reads 0.1x`,
    minTokens,
    lookbackBlocks: 20,
    maxBreakpoints: 4,
    writeMultiplier: { '5m': 1.25, '1h': 2 },
    readMultiplier: 0.1,
  };
}

/**
 * OpenAI's automatic caching; `readMultiplier` is the model family's cached price.
 *
 * @example openaiCacheRules({ readMultiplier: 0.25 }) // GPT-4.1
 */
export function openaiCacheRules({
  readMultiplier = 0.5,
}: {
  readMultiplier?: number;
} = {}): AutomaticCacheRules {
  return {
    kind: 'automatic',
    provider: 'openai',
    description:
      'OpenAI automatic prompt caching: prompts from 1,024 tokens, hits in 128-token increments, no write fee, reads at the model cached price',
    minTokens: 1_024,
    increment: 128,
    ttlMs: 5 * 60_000,
    readMultiplier,
    chargeWrites: false,
  };
}

/**
 * Gemini's implicit caching for a model's minimum.
 *
 * @example geminiCacheRules({ minTokens: 4_096 }) // Gemini 3.x
 */
export function geminiCacheRules({ minTokens = 2_048 }: { minTokens?: number } = {}): AutomaticCacheRules {
  return {
    kind: 'automatic',
    provider: 'google',
    description: `Gemini implicit caching: shared prefixes from ${minTokens.toLocaleString('en-US')} tokens, no write fee, reads at the model cached price`,
    minTokens,
    increment: 1,
    ttlMs: 5 * 60_000,
    readMultiplier: 0.1,
    chargeWrites: false,
  };
}

/**
 * The provider-neutral model `costMeter` uses when given no rules: every prompt cached as
 * sent, any shared prefix from `minTokens` read at `cacheRead`, every other input token billed
 * at `cacheWrite` (default `input`). For comparing policies, not for a provider's bill.
 *
 * @example costMeter({ pricing: tokenPricing(), rules: prefixCacheRules({ minTokens: 1_024 }) })
 */
export function prefixCacheRules({ minTokens = 0 }: { minTokens?: number } = {}): AutomaticCacheRules {
  return {
    kind: 'automatic',
    provider: 'any',
    description: `any shared prefix${minTokens > 0 ? ` from ${minTokens.toLocaleString('en-US')} tokens` : ''} read from the cache, every new token written`,
    minTokens,
    increment: 1,
    ttlMs: 5 * 60_000,
    readMultiplier: 1,
    chargeWrites: true,
  };
}

/** The minimum Anthropic caches per model family (the first match wins). */
const ANTHROPIC_MINIMUM: ReadonlyArray<readonly [RegExp, number]> = [
  [/opus-4-[56]|haiku-4-5/, 4_096],
  [/haiku-3|3-5-haiku|3-haiku/, 2_048],
];

/** OpenAI's cached price per model family, as a multiple of input (the first match wins). */
const OPENAI_READ: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-5/, 0.1],
  [/^(gpt-4\.1|o3(?!-mini)|o4)/, 0.25],
];

/** Gemini's implicit-cache minimum per version; `undefined` for versions without one. */
function geminiMinimum(model: string): number | undefined {
  const version = /gemini-(\d+)(?:\.(\d+))?/.exec(model);
  if (!version) return undefined;
  const major = Number(version[1]);
  if (major >= 3) return 4_096;
  if (major === 2 && Number(version[2] ?? 0) >= 5) return 2_048;
  return undefined;
}

/**
 * The caching rules a model's provider bills by, from its id (`claude-sonnet-4-5`,
 * `anthropic/claude-haiku-4-5`, `gpt-4.1-mini`, `gemini-2.5-pro`); `undefined` when the
 * provider is not one whose rules are modelled.
 *
 * @example cacheRulesFor('claude-opus-4-5')?.kind // 'breakpoints'
 */
export function cacheRulesFor(model: string): CacheRules | undefined {
  const name = model.toLowerCase().replace(/^.*\//, '');
  if (name.includes('claude')) {
    // The AI Gateway and OpenRouter write versions with a dot (`claude-3.5-haiku`).
    const minimum = ANTHROPIC_MINIMUM.find(([pattern]) => pattern.test(dashedVersions(name)))?.[1];
    return anthropicCacheRules(minimum ? { minTokens: minimum } : {});
  }
  if (/^(gpt-|o\d|chatgpt-|codex-)/.test(name)) {
    const read = OPENAI_READ.find(([pattern]) => pattern.test(name))?.[1];
    return openaiCacheRules(read ? { readMultiplier: read } : {});
  }
  if (name.startsWith('gemini')) {
    const minimum = geminiMinimum(name);
    return minimum
      ? geminiCacheRules({ minTokens: minimum })
      : { kind: 'none', provider: 'google', description: `no implicit cache for ${name}` };
  }
  return undefined;
}

/** Per-token prices of a prompt cache: a read, and a write per lifetime. */
export interface CachePriceList {
  read: number;
  write: Readonly<Record<CacheTtl, number>>;
}

/**
 * What reading and writing the prompt cache cost per token under a provider's rules: the
 * pricing's own `cacheRead` / `cacheWrite` where it states them, else the rules' multiples of
 * the input price (breakpoint caches bill writes by lifetime; automatic ones write for free,
 * unless the pricing names a write price; no cache reads at the input price).
 *
 * @example cachePriceList({ input: 3, output: 15 }, anthropicCacheRules()) // { read: 0.3, write: { '5m': 3.75, '1h': 6 } }
 */
export function cachePriceList(
  pricing: Pick<ModelPricing, 'input' | 'cacheRead' | 'cacheWrite'>,
  rules: CacheRules,
): CachePriceList {
  const { input } = pricing;
  const read = pricing.cacheRead ?? (rules.kind === 'none' ? input : input * rules.readMultiplier);
  const write =
    rules.kind === 'breakpoints'
      ? {
          '5m': pricing.cacheWrite ?? input * rules.writeMultiplier['5m'],
          '1h': input * rules.writeMultiplier['1h'],
        }
      : { '5m': pricing.cacheWrite ?? input, '1h': pricing.cacheWrite ?? input };
  return { read, write };
}

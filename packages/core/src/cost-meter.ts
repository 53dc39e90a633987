import { hash64 } from './hash.ts';
import type { ModelPricing } from './model-catalog.ts';
import type { TokenCounter } from './token-counter.ts';
import { contentHashOf, type Entry } from './transcript.ts';

/**
 * One message of a prompt as a provider's prompt cache sees it: what identifies its bytes, and
 * its tokens. Caches match whole leading runs of identical messages, so a prompt is costed as
 * a list of these.
 */
export interface PromptBlock {
  id: string;
  tokens: number;
}

/** What one model call cost. */
export interface BilledCall {
  inputTokens: number;
  /** Input served from the cache (the prefix a live earlier prompt shares), billed at `cacheRead`. */
  cachedTokens: number;
  /** Input not served from the cache, billed at `cacheWrite` (the provider caches it for the next call). */
  writtenTokens: number;
  outputTokens: number;
  /** In the pricing's currency: USD with registry prices, input-token equivalents with `tokenPricing`. */
  cost: number;
}

/** The sum of every call a meter billed. */
export interface CostTotals extends BilledCall {
  calls: number;
}

export interface CostMeter {
  /**
   * Bills one call. `at` (epoch ms) ages the cache; without it no time passes since the
   * previous call (a replay has no clock). A separate prompt (a summarizer's, a probe's) is
   * billed the same way: what it shares with a live prompt is read from the cache.
   */
  bill(call: { prompt: readonly PromptBlock[]; outputTokens?: number; at?: number }): BilledCall;
  readonly totals: Readonly<CostTotals>;
}

export interface CostMeterOptions {
  pricing: ModelPricing;
  /**
   * Shortest prefix a provider caches (OpenAI and Anthropic: 1,024 tokens); a shorter shared
   * prefix is billed as new input. Default 0.
   */
  minCachedTokens?: number;
  /** Earlier prompts the cache holds at once, most recently used first. Default 8. */
  maxCachedPrompts?: number;
}

/** Five minutes: the default cache lifetime of OpenAI and Anthropic. */
const DEFAULT_CACHE_TTL_MS = 5 * 60_000;

/**
 * Prices that make `cost` count input-token equivalents: a token of new input costs 1, a cached
 * token `cacheRead` (default 0.1: OpenAI's cached input, Anthropic's cache read), a written one
 * `cacheWrite` (default 1; Anthropic's is 1.25), output `output` (default 0: the same in every
 * policy that replays one transcript). For comparing policies without picking a model.
 *
 * @example costMeter({ pricing: tokenPricing({ cacheWrite: 1.25 }) })
 */
export function tokenPricing({
  cacheRead = 0.1,
  cacheWrite = 1,
  output = 0,
}: {
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
} = {}): ModelPricing {
  const M = 1_000_000;
  return { input: M, output: output * M, cacheRead: cacheRead * M, cacheWrite: cacheWrite * M };
}

interface CachedPrompt {
  blocks: readonly PromptBlock[];
  lastUsed: number;
}

/**
 * Bills model calls the way providers do: the leading messages a call shares byte for byte
 * with a prompt still in the cache (sent within the cache lifetime, which each hit renews) at
 * the cached price, the rest at the write price, output at the output price.
 *
 * @example
 * const meter = costMeter({ pricing: baton.options.pricing ?? tokenPricing() });
 * meter.bill({ prompt: promptBlocks(prepared, counter), outputTokens: usage.outputTokens });
 * meter.totals.cost;
 */
export function costMeter({
  pricing,
  minCachedTokens = 0,
  maxCachedPrompts = 8,
}: CostMeterOptions): CostMeter {
  const read = pricing.cacheRead ?? pricing.input;
  const write = pricing.cacheWrite ?? pricing.input;
  const ttl = pricing.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  let cache: CachedPrompt[] = [];
  let clock = 0;
  const totals: CostTotals = {
    calls: 0,
    inputTokens: 0,
    cachedTokens: 0,
    writtenTokens: 0,
    outputTokens: 0,
    cost: 0,
  };
  return {
    totals,
    bill({ prompt, outputTokens = 0, at }) {
      clock = Math.max(clock, at ?? clock);
      cache = cache.filter((entry) => clock - entry.lastUsed <= ttl);
      let cachedTokens = 0;
      for (const entry of cache)
        cachedTokens = Math.max(cachedTokens, sharedPrefixTokens(prompt, entry.blocks));
      if (cachedTokens < minCachedTokens) cachedTokens = 0;
      // This prompt is now cached, as of now: so is the prefix it read (a hit renews what it
      // read, not the rest of the older prompt). An older prompt it extends is a shorter copy.
      cache = [
        { blocks: prompt, lastUsed: clock },
        ...cache.filter((entry) => sharedPrefixTokens(prompt, entry.blocks) < tokensOf(entry.blocks)),
      ].slice(0, maxCachedPrompts);
      const inputTokens = tokensOf(prompt);
      const writtenTokens = inputTokens - cachedTokens;
      const cost = (cachedTokens * read + writtenTokens * write + outputTokens * pricing.output) / 1_000_000;
      totals.calls++;
      totals.inputTokens += inputTokens;
      totals.cachedTokens += cachedTokens;
      totals.writtenTokens += writtenTokens;
      totals.outputTokens += outputTokens;
      totals.cost += cost;
      return { inputTokens, cachedTokens, writtenTokens, outputTokens, cost };
    },
  };
}

const tokensOf = (blocks: readonly PromptBlock[]) => blocks.reduce((sum, b) => sum + b.tokens, 0);

function sharedPrefixTokens(a: readonly PromptBlock[], b: readonly PromptBlock[]): number {
  let tokens = 0;
  for (let i = 0; i < a.length && i < b.length && a[i]!.id === b[i]!.id; i++) tokens += a[i]!.tokens;
  return tokens;
}

/**
 * A prompt as the provider receives it from an adapter: the system prompt (the host's and
 * Baton's notes block), the projection, then the trailing notices. Exact uncalibrated counts.
 */
export function promptBlocks(
  prompt: { system?: string; entries: readonly Entry[]; trailer?: string },
  counter: TokenCounter,
): PromptBlock[] {
  const text = (kind: string, value: string | undefined): PromptBlock[] =>
    value ? [{ id: `${kind}:${hash64(value)}`, tokens: counter.rawText(value) }] : [];
  return [
    ...text('system', prompt.system),
    ...prompt.entries.map((entry) => ({ id: contentHashOf(entry), tokens: counter.raw(entry) })),
    ...text('trailer', prompt.trailer),
  ];
}

import type { TokenCounter } from '../tokens/token-counter.ts';
import { contentHashOf, type Entry } from '../transcript/transcript.ts';
import { BatonConfigError } from '../util/errors.ts';
import { hash64 } from '../util/hash.ts';
import {
  type AutomaticCacheRules,
  type BreakpointCacheRules,
  CACHE_TTL_MS,
  type CacheRules,
  type CacheTtl,
  cachePriceList,
  prefixCacheRules,
} from './cache-rules.ts';
import type { ModelPricing } from './model-catalog.ts';

/**
 * One message of a prompt as a provider's prompt cache sees it: what identifies its bytes, its
 * tokens, how many content blocks it holds (Anthropic's lookback counts blocks, not messages)
 * and, where the request marks one on its last block, a cache breakpoint and its lifetime.
 */
export interface PromptBlock {
  id: string;
  tokens: number;
  /** Content blocks in the message (text, tool use, tool result, ...). Default 1. */
  contentBlocks?: number;
  /** A `cache_control` breakpoint on the message's last block, with its lifetime. */
  breakpoint?: CacheTtl;
}

/** What one model call cost. */
export interface BilledCall {
  inputTokens: number;
  /** Input read from the cache, billed at the cached price. */
  cachedTokens: number;
  /**
   * Input written to the cache at a write price (Anthropic's breakpoint writes; every new token
   * under the neutral rules). 0 where writing is free (OpenAI, Gemini): the rest of the input,
   * `inputTokens - cachedTokens - writtenTokens`, is billed at the input price.
   */
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
   * previous call. A separate prompt (a summarizer's, a probe's) is billed the same way: what it
   * shares with a live entry is read from the cache.
   */
  bill(call: { prompt: readonly PromptBlock[]; outputTokens?: number; at?: number }): BilledCall;
  readonly rules: CacheRules;
  readonly totals: Readonly<CostTotals>;
}

export interface CostMeterOptions {
  pricing: ModelPricing;
  /**
   * The provider's caching rules (`cacheRulesFor(model)`, `anthropicCacheRules()`, ...).
   * Default `prefixCacheRules({ minTokens: minCachedTokens })`: any shared prefix cached, every
   * new token billed at `cacheWrite`.
   */
  rules?: CacheRules;
  /** The default rules' shortest cached prefix. Default 0; ignored when `rules` is given. */
  minCachedTokens?: number;
  /** Cache entries held at once, least recently used dropped first. Default 64. */
  maxCachedPrompts?: number;
}

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

/** A cached prefix: the first `end` blocks of `prompt`. */
interface CacheEntry {
  prompt: readonly PromptBlock[];
  end: number;
  ttlMs: number;
  lastUsed: number;
}

/** What the rules decided for one prompt, before prices. */
interface Decision {
  cached: number;
  /** Written tokens by lifetime (Anthropic) or at the neutral write price (`'5m'`). */
  written: Record<CacheTtl, number>;
}

/**
 * Bills model calls by a provider's caching rules: what a call reads from the cache at the
 * cached price, what it writes at the write price (Anthropic: 1.25x for 5 minutes, 2x for an
 * hour), the rest of its input at the input price, output at the output price. Breakpoint
 * rules read only at the prompt's breakpoints (20-block lookback) and cache nothing a request
 * does not mark; automatic rules read the longest prefix shared with a live prompt.
 *
 * @example
 * const meter = costMeter({ pricing: lookupModel('claude-sonnet-4')!.pricing!, rules: cacheRulesFor('claude-sonnet-4') });
 * meter.bill({ prompt: withBreakpoints(promptBlocks(prepared, counter), [0, 7]), outputTokens: 120 });
 * meter.totals.cost;
 */
export function costMeter({
  pricing,
  minCachedTokens = 0,
  rules = prefixCacheRules({ minTokens: minCachedTokens }),
  maxCachedPrompts = 64,
}: CostMeterOptions): CostMeter {
  // A lifetime the pricing states (a test's, a provider's extended retention) wins over the rules'.
  const effective: CacheRules =
    rules.kind === 'automatic' && pricing.cacheTtlMs !== undefined
      ? { ...rules, ttlMs: pricing.cacheTtlMs }
      : rules;
  const { input } = pricing;
  const { read, write: writePrice } = cachePriceList(pricing, effective);
  let cache: CacheEntry[] = [];
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
    rules: effective,
    totals,
    bill({ prompt, outputTokens = 0, at }) {
      clock = Math.max(clock, at ?? clock);
      cache = cache.filter((entry) => clock - entry.lastUsed <= entry.ttlMs);
      const decision: Decision =
        effective.kind === 'breakpoints'
          ? billBreakpoints(effective, prompt, cache, clock)
          : effective.kind === 'automatic'
            ? billAutomatic(effective, prompt, cache, clock)
            : { cached: 0, written: { '5m': 0, '1h': 0 } };
      cache = cache.sort((a, b) => b.lastUsed - a.lastUsed).slice(0, maxCachedPrompts);
      const inputTokens = tokensOf(prompt, prompt.length);
      const { cached } = decision;
      const writtenTokens = decision.written['5m'] + decision.written['1h'];
      const uncached = inputTokens - cached - writtenTokens;
      const cost =
        (cached * read +
          decision.written['5m'] * writePrice['5m'] +
          decision.written['1h'] * writePrice['1h'] +
          uncached * input +
          outputTokens * pricing.output) /
        1_000_000;
      totals.calls++;
      totals.inputTokens += inputTokens;
      totals.cachedTokens += cached;
      totals.writtenTokens += writtenTokens;
      totals.outputTokens += outputTokens;
      totals.cost += cost;
      return { inputTokens, cachedTokens: cached, writtenTokens, outputTokens, cost };
    },
  };
}

/** Tokens of the first `end` blocks. */
function tokensOf(blocks: readonly PromptBlock[], end: number): number {
  let sum = 0;
  for (let i = 0; i < end; i++) sum += blocks[i]!.tokens;
  return sum;
}

/** Leading blocks two prompts share byte for byte. */
function sharedBlocks(a: readonly PromptBlock[], b: readonly PromptBlock[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i]!.id === b[i]!.id) i++;
  return i;
}

/**
 * Automatic caching: the longest prefix shared with a live prompt, read when it reaches the
 * minimum, rounded down to the increment; this prompt is then cached as of now, and an older
 * prompt it wholly repeats is dropped (a hit renews what it read, not the rest of the older one).
 */
function billAutomatic(
  rules: AutomaticCacheRules,
  prompt: readonly PromptBlock[],
  cache: CacheEntry[],
  clock: number,
): Decision {
  let shared = 0;
  for (const entry of cache)
    shared = Math.max(shared, tokensOf(prompt, Math.min(entry.end, sharedBlocks(prompt, entry.prompt))));
  const cached =
    shared < rules.minTokens || shared === 0
      ? 0
      : rules.minTokens + Math.floor((shared - rules.minTokens) / rules.increment) * rules.increment;
  const kept = cache.filter((entry) => sharedBlocks(prompt, entry.prompt) < entry.end);
  cache.length = 0;
  cache.push({ prompt, end: prompt.length, ttlMs: rules.ttlMs, lastUsed: clock }, ...kept);
  const written = rules.chargeWrites ? tokensOf(prompt, prompt.length) - cached : 0;
  return { cached, written: { '5m': written, '1h': 0 } };
}

/**
 * Breakpoint caching (Anthropic): at each breakpoint, the longest entry an earlier request
 * wrote at this breakpoint or at a block boundary within the lookback before it is read; the
 * prefix from there to the last breakpoint that reaches the minimum is written, each stretch at
 * the price of the lifetime of the breakpoint that ends it; what follows the last breakpoint is
 * plain input. Every breakpoint reaching the minimum leaves (or refreshes) an entry.
 */
function billBreakpoints(
  rules: BreakpointCacheRules,
  prompt: readonly PromptBlock[],
  cache: CacheEntry[],
  clock: number,
): Decision {
  const ends: Array<{ end: number; ttl: CacheTtl }> = [];
  prompt.forEach((block, i) => {
    if (block.breakpoint) ends.push({ end: i + 1, ttl: block.breakpoint });
  });
  if (ends.length > rules.maxBreakpoints)
    throw new BatonConfigError(
      `[baton] [cost-meter] ${ends.length} cache breakpoints in one prompt: ${rules.provider} accepts at most ${rules.maxBreakpoints}`,
      ['prompt'],
    );
  ends.forEach(({ ttl }, i) => {
    if (i > 0 && CACHE_TTL_MS[ttl] > CACHE_TTL_MS[ends[i - 1]!.ttl])
      throw new BatonConfigError(
        `[baton] [cost-meter] a 1h breakpoint after a 5m one: ${rules.provider} requires longer lifetimes first`,
        ['prompt'],
      );
  });
  // Tokens and content blocks before each block boundary.
  const tokensAt = [0];
  const blocksAt = [0];
  prompt.forEach((block, i) => {
    tokensAt.push(tokensAt[i]! + block.tokens);
    blocksAt.push(blocksAt[i]! + (block.contentBlocks ?? 1));
  });
  const shared = new Map<readonly PromptBlock[], number>();
  const sharedWith = (entry: CacheEntry) => {
    const known = shared.get(entry.prompt);
    if (known !== undefined) return known;
    const n = sharedBlocks(prompt, entry.prompt);
    shared.set(entry.prompt, n);
    return n;
  };

  let hit: CacheEntry | undefined;
  for (const { end } of ends)
    for (const entry of cache) {
      const inReach = entry.end <= end && blocksAt[end]! - blocksAt[entry.end]! <= rules.lookbackBlocks;
      if (inReach && sharedWith(entry) >= entry.end && (!hit || entry.end > hit.end)) hit = entry;
    }
  if (hit) hit.lastUsed = clock; // a hit refreshes the entry it read
  const cachedEnd = hit?.end ?? 0;
  const written: Record<CacheTtl, number> = { '5m': 0, '1h': 0 };
  let from = cachedEnd;
  for (const { end, ttl } of ends) {
    if (tokensAt[end]! < rules.minTokens) continue;
    if (end > from) {
      written[ttl] += tokensAt[end]! - tokensAt[from]!;
      from = end;
    }
    const same = cache.find((entry) => entry.end === end && sharedWith(entry) >= end);
    if (same) {
      same.lastUsed = clock;
      same.ttlMs = Math.max(same.ttlMs, CACHE_TTL_MS[ttl]);
    } else cache.push({ prompt, end, ttlMs: CACHE_TTL_MS[ttl], lastUsed: clock });
  }
  return { cached: tokensAt[cachedEnd]!, written };
}

/**
 * A prompt with `cache_control` breakpoints on the blocks at `positions` (indexes into
 * `blocks`), each with lifetime `ttl` (default `'5m'`). Positions out of range are refused.
 *
 * @example withBreakpoints(promptBlocks(prepared, counter), [0, 12])
 */
export function withBreakpoints(
  blocks: readonly PromptBlock[],
  positions: readonly number[],
  ttl: CacheTtl = '5m',
): PromptBlock[] {
  for (const at of positions)
    if (!Number.isInteger(at) || at < 0 || at >= blocks.length)
      throw new BatonConfigError(
        `[baton] [cost-meter] breakpoint position ${at}: expected an index into the ${blocks.length} prompt blocks`,
        ['positions'],
      );
  const marked = new Set(positions);
  return blocks.map((block, i) => (marked.has(i) ? { ...block, breakpoint: ttl } : block));
}

/**
 * A prompt as the provider receives it from an adapter: the system prompt (the host's and
 * Baton's notes block), the projection, then the trailing notices. Exact uncalibrated counts;
 * each message's content blocks are its parts.
 */
export function promptBlocks(
  prompt: { system?: string; entries: readonly Entry[]; trailer?: string },
  counter: TokenCounter,
): PromptBlock[] {
  const text = (kind: string, value: string | undefined): PromptBlock[] =>
    value ? [{ id: `${kind}:${hash64(value)}`, tokens: counter.rawText(value) }] : [];
  return [
    ...text('system', prompt.system),
    ...prompt.entries.map((entry) => ({
      id: contentHashOf(entry),
      tokens: counter.raw(entry),
      contentBlocks: Math.max(1, entry.parts.length),
    })),
    ...text('trailer', prompt.trailer),
  ];
}

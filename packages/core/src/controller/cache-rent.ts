import type { ResolvedOptions } from '../budget/options.ts';
import type { SessionState } from '../contracts/session-state.ts';
import { type CacheRules, cachePriceList } from '../pricing/cache-rules.ts';
import type { ModelPricing } from '../pricing/model-catalog.ts';

/** A provider whose caching rules are not modelled: only the pricing's own cached prices apply. */
const NO_RULES: CacheRules = { kind: 'none', provider: 'unknown', description: 'no caching rules known' };

/** Since the last compaction: the prompt it left, and the cached reads spent on growth above it. */
export type CacheRent = NonNullable<SessionState['sinceCompaction']>;

/** Cached reads and cache writes as multiples of the input price. */
export interface CachePrices {
  read: number;
  write: number;
}

/**
 * What the prompt's cache costs this model, relative to its input price, as its provider bills
 * it (`cachePriceList`): the model's own prices when the catalog or the options give them, else
 * its provider's rules (`cacheRulesFor`: Gemini 2.5 reads at 0.1x, Claude writes at 1.25x, a
 * model with no cache reads at 1x). A model known by neither: reads 0.1x and a written token
 * 1x, as OpenAI bills; priced with no rules and no cached price, no discount.
 */
export function cachePrices(pricing: ModelPricing | undefined, rules: CacheRules | undefined): CachePrices {
  if (!pricing?.input && !rules) return { read: 0.1, write: 1 };
  // Priced with no rules: the pricing's own cached prices, else none (what `none` rules bill).
  const priced = pricing?.input ? pricing : { input: 1 };
  const list = cachePriceList(priced, rules ?? NO_RULES);
  return { read: list.read / priced.input, write: list.write['5m'] / priced.input };
}

/**
 * Whether the next compaction of a long run has paid for itself. After a compaction the prompt
 * regrows from what it left (`rent.tokens`); every call then reads the growth again, at the
 * cached price. A compaction takes that growth away but rewrites the prompt it leaves, at the
 * write price. Compacting once the reads spent on growth reach the cost of that rewrite is
 * the break-even rule of rent-or-buy: never more than twice the cost of the best moment in
 * hindsight, and for steady growth close to the cost-optimal interval, whose swing
 * (sqrt(2 x write x floor x growth / read)) depends on the floor and the growth, not on the
 * window. A share of the window (`compactAt`) stays the backstop: in a large window it lets
 * the prompt swell far past the point where compacting is cheaper; in a small one it comes
 * first. The prompt must also have grown `minCompactionGain` past the floor, so a compaction
 * still frees what the backstop's would.
 *
 * Only a call whose newest entry (`newest`, its key) is not the last counted call's is a step of
 * the run: a retry, or a prepared projection prepared again (whose newest entry keeps its key,
 * folded or not), neither pays rent nor starts a compaction, so preparing is idempotent
 * (DESIGN.md invariant 9). Keys, not seqs: a host that writes compactions back into its state
 * numbers its messages anew.
 *
 * Measured 2026-12-02 on 2,000 messages back to back at 32k (`baton replay`, the corpus
 * transcripts), with the steady target and protections of controller.ts: the cost fell from
 * 0.98x to 0.91x of compacting every ten calls.
 */
export function rentDue(
  rent: CacheRent | undefined,
  before: number,
  prices: CachePrices,
  options: Pick<ResolvedOptions, 'minCompactionGain' | 'inputBudget'>,
  newest: string | undefined,
): boolean {
  if (rent === undefined || !isNewStep(rent, newest)) return false;
  const grown = before - rent.tokens >= options.minCompactionGain * options.inputBudget;
  return grown && rent.reads >= prices.write * rent.tokens;
}

/** Whether a call whose newest entry has key `newest` is not the last counted call again. */
function isNewStep(rent: CacheRent, newest: string | undefined): boolean {
  return rent.newest === undefined || newest !== rent.newest;
}

/**
 * The rent after this call: a compaction starts it anew from the prompt it left; any other
 * step of the run (see rentDue) adds what reading its growth above that floor cost; before the
 * first compaction there is none (the backstop times the first one). `newest` is the key of the
 * call's newest entry. Returns whether the state changed.
 */
export function accrueRent(
  state: SessionState,
  outcome: 'ok' | 'compacted' | 'unfit',
  tokens: number,
  prices: CachePrices,
  newest: string | undefined,
): boolean {
  if (outcome === 'compacted') {
    state.sinceCompaction = { tokens, reads: 0, ...(newest === undefined ? {} : { newest }) };
    return true;
  }
  const rent = state.sinceCompaction;
  if (outcome === 'unfit' || rent === undefined || !isNewStep(rent, newest)) return false;
  if (newest === undefined) delete rent.newest;
  else rent.newest = newest;
  if (tokens > rent.tokens) rent.reads = Math.round(rent.reads + prices.read * (tokens - rent.tokens));
  return true;
}

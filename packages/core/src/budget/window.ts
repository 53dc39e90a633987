import type { z } from 'zod/v4';
import { lookupModel, type ModelInfo, type ModelPricing } from '../pricing/model-catalog.ts';
import {
  type ResolvedSelfCompact,
  resolveSelfCompact,
  type selfCompactSchema,
} from '../probes/self-compaction.ts';

/** The options that follow from a window and its output reservation (resolved per call when the model comes from the call). */
export interface WindowOptions {
  contextWindow: number;
  /** Output tokens reserved: what the request asks for (see call-budget.ts). */
  reserveOutput: number;
  /** contextWindow - reserveOutput: what the prompt may use. */
  inputBudget: number;
  /** The model's prices, when the model is a priced catalog entry (what `costMeter` bills with). */
  pricing?: ModelPricing | undefined;
  /** Tokens the rendered notes may take. Default 10% of the input budget. */
  notesCap: number;
  maxSummaryTokens: number;
  /** Present when self-compaction probes are on. */
  selfCompact?: ResolvedSelfCompact | undefined;
}

/** The window options as the caller gave them (undefined: not given). */
export interface GivenWindow {
  model: string | undefined;
  contextWindow: number | undefined;
  reserveOutput: number | undefined;
  notesCap: number | undefined;
  maxSummaryTokens: number | undefined;
  selfCompact: z.output<typeof selfCompactSchema> | undefined;
  catalog: Readonly<Record<string, ModelInfo>> | undefined;
}

/**
 * The default bound of the summary, in tokens, whatever the window. Measured 2026-12-03
 * (`baton replay`, the corpus transcripts back to back and revisiting, 2,000 and 4,000 messages):
 * at 32k, 2,000 instead of 4,000 (3,840 there) cost 1.5-5.9% less with references in the
 * prompt within -0.2 to +0.3 points; at 64k 1.4-1.5% less, -0.1 points; 16k (1,920) unchanged.
 */
export const MAX_SUMMARY_TOKENS = 2_000;

/** The fields derived from a window and its output reservation. */
export function windowFields(
  given: GivenWindow,
  window: number,
  reserveOutput: number,
  pricing: ModelPricing | undefined,
): WindowOptions {
  const budget = window - reserveOutput;
  return {
    contextWindow: window,
    reserveOutput,
    inputBudget: budget,
    pricing,
    notesCap: given.notesCap ?? Math.max(64, Math.floor(budget * 0.1)),
    // The summary stands for everything evicted and stays in the cached prefix: every call
    // until the next compaction reads it. 15% of the budget, at most MAX_SUMMARY_TOKENS.
    maxSummaryTokens:
      given.maxSummaryTokens ?? Math.max(64, Math.min(MAX_SUMMARY_TOKENS, Math.floor(budget * 0.15))),
    selfCompact: given.selfCompact ? resolveSelfCompact(given.selfCompact, budget) : undefined,
  };
}

/**
 * Baton's own output reservation where nothing says what the request asks for: the model's
 * limit, at most 16,384 tokens and 20% of the window.
 */
export function defaultReserve(window: number, maxOutput: number | undefined): number {
  return Math.min(maxOutput ?? 16_384, 16_384, Math.floor(window * 0.2));
}

/** The catalog entry of a model: the caller's `catalog` first (it overrides every dated id of a family), then Baton's. */
export function modelInfo(
  model: string,
  catalog: Readonly<Record<string, ModelInfo>> | undefined,
): ModelInfo | undefined {
  return (catalog ? lookupModel(model, catalog) : undefined) ?? lookupModel(model);
}

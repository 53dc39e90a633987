import type { BatonEventBody } from '../contracts/events.ts';
import type { CallOutput } from '../contracts/prepared.ts';
import type { ModelPricing } from '../pricing/model-catalog.ts';
import { BatonConfigError, BatonModelError } from '../util/errors.ts';
import type { BaseEngine, Engine } from './engine.ts';
import type { BatonSettings } from './options.ts';
import { providerOutputDefault } from './provider-output-defaults.ts';
import { defaultReserve, modelInfo, windowFields } from './window.ts';

/** One call's window and output reservation, and where the reservation came from. */
export interface CallBudget {
  model: string | undefined;
  contextWindow: number;
  reserveOutput: number;
  source: 'option' | 'call' | 'provider-default' | 'baton-default';
  pricing: ModelPricing | undefined;
  /** The output limit Baton puts in the request in place of the provider's default. */
  outputCap?: number;
  /** A limit the request would carry that cannot fit: what it asks, and whether the request was capped. */
  unfitDefault?: { requested: number; applied: boolean; reason?: string };
}

/**
 * Reserving a provider's default output limit is worth it while it leaves the prompt at least
 * this share of the window; a larger default (Anthropic's 128,000 on a 200k window) is capped.
 */
const DEFAULT_FITS = 0.5;

/**
 * The window, prices and output reservation of one call. The window: `contextWindow`, else the
 * catalog entry of `model`, else of the call's model. The reservation, first that applies:
 * the `reserveOutput` option (a larger limit in the request is lowered to it, as below); the
 * call's own output limit; the provider package's default when
 * it leaves at least half the window to the prompt; else Baton's default (the model's limit, at
 * most 16,384 and 20% of the window), with the request's limit capped to it where the adapter
 * can (or the provider's default reserved where it cannot). Input + the request's limit then
 * never exceeds the window. Throws `BatonModelError` when no window is known, and
 * `BatonConfigError` when the request's limit cannot be honoured: it leaves no room for the
 * prompt, or it is above `reserveOutput` where the adapter cannot lower it (`cannotCapOutput`;
 * reserving less than the request asks would let input + max_tokens exceed the window, which
 * the provider refuses).
 *
 * @example
 * resolveCallBudget(settings, { modelId: 'claude-sonnet-4-5', provider: 'anthropic.messages' });
 * // { contextWindow: 200_000, reserveOutput: 64_000, source: 'provider-default', ... }
 */
export function resolveCallBudget(settings: BatonSettings, call: CallOutput): CallBudget {
  const { given } = settings;
  const model = given.model ?? call.modelId;
  const info = model ? modelInfo(model, given.catalog) : undefined;
  const window = given.contextWindow ?? info?.contextWindow;
  if (window === undefined) throw new BatonModelError(model, call.provider);
  const budget = { model, contextWindow: window, pricing: info?.pricing };
  const providerDefault =
    call.maxOutputTokens === undefined && call.provider && call.modelId
      ? providerOutputDefault(call.provider, call.modelId)
      : undefined;
  const inWindow = `the ${window}-token window${model ? ` of '${model}'` : ''}`;
  // Where the adapter cannot lower the request's limit, its reason says what the user can do.
  const fix =
    call.cannotCapOutput === undefined ? '' : `; the adapter cannot lower it: ${call.cannotCapOutput}`;
  const tooLarge = (limit: number, field: 'reserveOutput' | 'maxOutputTokens') => {
    if (limit >= window)
      throw new BatonConfigError(
        field === 'reserveOutput'
          ? `[baton] [budget] reserveOutput (${limit}) leaves no room for the prompt in ${inWindow}`
          : `[baton] [budget] this call's output limit (${limit} tokens) leaves no room for the prompt in ${inWindow}${fix}`,
        [field],
      );
    return limit;
  };
  // The default cannot fit: the request carries `cap` instead where the adapter can lower it.
  // Where it cannot, the request keeps its limit: reserved when the prompt still has room, else
  // refused (an explicit reserveOutput below it cannot be kept either).
  const capped = (requested: number, cap: number, source: CallBudget['source']): CallBudget => {
    if (call.cannotCapOutput === undefined)
      return {
        ...budget,
        reserveOutput: cap,
        source,
        outputCap: cap,
        unfitDefault: { requested, applied: true },
      };
    if (source === 'option')
      throw new BatonConfigError(
        `[baton] [budget] reserveOutput (${cap}) is below this call's output limit (${requested} tokens), so input + output limit could exceed ${inWindow}${fix}${requested < window ? `, or raise reserveOutput to ${requested}` : ''}`,
        ['reserveOutput'],
      );
    return {
      ...budget,
      reserveOutput: tooLarge(requested, 'maxOutputTokens'),
      source: 'provider-default',
      unfitDefault: { requested, applied: false, reason: call.cannotCapOutput },
    };
  };

  if (given.reserveOutput !== undefined) {
    const reserve = tooLarge(given.reserveOutput, 'reserveOutput');
    // The option wins: a larger limit the request would carry (the call's or the default) is lowered to it.
    const asked = call.maxOutputTokens ?? providerDefault;
    if (asked !== undefined && asked > reserve) return capped(asked, reserve, 'option');
    return { ...budget, reserveOutput: reserve, source: 'option' };
  }
  if (call.maxOutputTokens !== undefined)
    return { ...budget, reserveOutput: tooLarge(call.maxOutputTokens, 'maxOutputTokens'), source: 'call' };
  const fallback = defaultReserve(window, info?.maxOutput);
  if (providerDefault === undefined) return { ...budget, reserveOutput: fallback, source: 'baton-default' };
  if (providerDefault <= window * DEFAULT_FITS)
    return { ...budget, reserveOutput: providerDefault, source: 'provider-default' };
  return capped(providerDefault, fallback, 'baton-default');
}

/** The engine with the options of one call's budget. */
function engineFor(base: BaseEngine, budget: CallBudget): Engine {
  const { given } = base.options;
  return {
    ...base,
    options: {
      ...base.options,
      ...windowFields(given, budget.contextWindow, budget.reserveOutput, budget.pricing),
      outputCap: budget.outputCap,
    },
  };
}

/** Notes cap before any call has named a window (the notes API used before the first model call). */
const NOTES_CAP_BEFORE_WINDOW = 4_000;

/**
 * One session's view of the budget: each call's options resolved for the model it goes to, the
 * latest kept for what happens between calls (an overflow's recovery, the agent tools), and an
 * unfit provider default told once per session (`output-limit-capped`).
 */
export class SessionBudget {
  private readonly base: BaseEngine;
  private latest: Engine | undefined;
  private told = false;

  constructor(base: BaseEngine) {
    this.base = base;
  }

  /** The engine for this call. Throws `BatonModelError` / `BatonConfigError` when the call has no usable window. */
  forCall(call: CallOutput, emit: (event: BatonEventBody) => void): Engine {
    const budget = resolveCallBudget(this.base.options, call);
    const unfit = budget.unfitDefault;
    if (unfit && !this.told) {
      this.told = true;
      emit({
        type: 'output-limit-capped',
        ...(budget.model ? { model: budget.model } : {}),
        requested: unfit.requested,
        reserved: budget.reserveOutput,
        contextWindow: budget.contextWindow,
        applied: unfit.applied,
        ...(unfit.reason ? { reason: unfit.reason } : {}),
      });
    }
    this.latest = engineFor(this.base, budget);
    return this.latest;
  }

  /** The latest call's engine; before the first call, the configured window's. */
  get engine(): Engine {
    this.latest ??= engineFor(this.base, resolveCallBudget(this.base.options, {}));
    return this.latest;
  }

  /** Where the ladder stops, in tokens, for the latest call (what the compact tool reports). */
  target(): number {
    const { options } = this.engine;
    return options.targetAt * options.inputBudget;
  }

  /** Tokens one `recall` may return: 30% of the latest call's input budget, at least 2,000. */
  recallLimit(): number {
    return Math.max(2_000, Math.floor(this.engine.options.inputBudget * 0.1 * 3));
  }

  /** The notes cap now: the latest call's, else the configured one, else a fixed 4,000 tokens. */
  notesCap(): number {
    return this.latest?.options.notesCap ?? this.base.options.notesCap ?? NOTES_CAP_BEFORE_WINDOW;
  }
}

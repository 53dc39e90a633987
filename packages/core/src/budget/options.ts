import { z } from 'zod/v4';
import type { BatonEvent } from '../contracts/events.ts';
import type { Stage } from '../contracts/stage.ts';
import type { Store } from '../contracts/store.ts';
import type { Summarizer } from '../contracts/summarizer.ts';
import type { ModelInfo } from '../pricing/model-catalog.ts';
import { selfCompactSchema } from '../probes/self-compaction.ts';
import { boundedNotes, boundedStore } from '../stores/bounded-store.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { type NotesBackend, storeNotes } from '../stores/notes-backend.ts';
import { extractiveSummarizer } from '../summarizers/extractive.ts';
import { checkedTokenizer, type EncodingName, gptTokenizer, type Tokenizer } from '../tokens/tokenizer.ts';
import type { Entry } from '../transcript/transcript.ts';
import { BatonConfigError } from '../util/errors.ts';
import { defaultReserve, type GivenWindow, modelInfo, type WindowOptions, windowFields } from './window.ts';

/** Thresholds are shares of the input budget; a percentage (80) is the likely mistake. */
const SHARE = 'expected a share of the input budget in (0, 1], e.g. 0.8 for 80%';
const ratio = () => z.number({ error: SHARE }).gt(0, SHARE).lte(1, SHARE);
const GAIN_SHARE = 'expected a share of the input budget in [0, 1), e.g. 0.3';
const positiveInt = z
  .number({ error: 'expected a positive integer' })
  .int('expected an integer')
  .positive('expected a positive integer');
const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', { error: `expected ${what}` });

const price = z.number({ error: 'expected USD per million tokens' }).nonnegative();
const modelInfoSchema = z.object({
  contextWindow: positiveInt,
  maxOutput: positiveInt.optional(),
  encoding: z.enum(['o200k_base', 'cl100k_base']),
  pricing: z
    .object({
      input: price,
      output: price,
      cacheRead: price.optional(),
      cacheWrite: price.optional(),
      cacheTtlMs: positiveInt.optional(),
    })
    .strict()
    .optional(),
});

/** Every option `createBaton` accepts (exported for the test that keeps the README's table in step). */
export const optionsSchema = z
  .object({
    model: z.string().min(1).optional(),
    contextWindow: positiveInt.optional(),
    reserveOutput: z.number().int().nonnegative().optional(),
    warnAt: ratio().optional(),
    compactAt: ratio().default(0.8),
    targetAt: ratio().optional(),
    truncateAt: ratio().optional(),
    keep: z.number().int().nonnegative().default(3),
    /**
     * Least share of the input budget a compaction the backstop starts must free, or its
     * decisions are dropped and the prompt it could reach is kept as the floor (default 0.3).
     * A compaction re-bills the whole prompt at the uncached price (a cache write) to save the
     * freed tokens on later calls at the cached price (about a tenth): freeing a few hundred
     * tokens never repays that. Requested compactions (the compact tool, a probe, an overflow)
     * and prompts over the budget are not gated.
     */
    minCompactionGain: z.number({ error: GAIN_SHARE }).min(0, GAIN_SHARE).lt(1, GAIN_SHARE).default(0.3),
    /**
     * Session objects kept in memory, least recently used dropped first (their ledger, state
     * and archive stay in the store; the next call for a dropped id reloads them).
     */
    maxSessions: positiveInt.default(1_000),
    keepRecentGroups: z.number().int().nonnegative().default(3),
    maxSummaryInputTokens: positiveInt.default(8_000),
    maxSummaryTokens: positiveInt.optional(),
    /** Deadline of each summarizer call (ms); past it the summary fails and the ladder falls through. */
    summaryTimeoutMs: positiveInt.default(60_000),
    /** Deadline of each stage's run (ms); past it the stage is skipped with a `stage-failed` event. */
    stageTimeoutMs: positiveInt.default(300_000),
    /** Deadline of each call into the configured `store` or `notes` backend (ms); past it the call fails (a `store-failed` event, or a `notes` tool error). */
    storeTimeoutMs: positiveInt.default(30_000),
    opaqueTokens: z.number().int().nonnegative().default(512),
    notesCap: positiveInt.optional(),
    pinnedTools: z.array(z.string().min(1)).default([]),
    pin: fn<(entry: Entry) => boolean>('a function (entry) => boolean').optional(),
    summarizer: fn<Summarizer>('an async function (input) => string').optional(),
    stages: z.array(fn<Stage>('a stage function (ctx) => Promise<StageResult>')).optional(),
    store: z
      .custom<Store>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          [
            'getDocument',
            'putDocument',
            'appendArchive',
            'getArchive',
            'rangeArchive',
            'searchArchive',
          ].every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
        {
          error:
            'expected a Store (getDocument, putDocument, appendArchive, getArchive, rangeArchive, searchArchive)',
        },
      )
      .optional(),
    tokenizer: z
      .union([
        z.enum(['o200k_base', 'cl100k_base']),
        z.custom<Tokenizer>(
          (value) =>
            typeof value === 'object' &&
            value !== null &&
            typeof (value as Record<string, unknown>).count === 'function',
          { error: "expected 'o200k_base', 'cl100k_base' or a Tokenizer { name, count(text) }" },
        ),
      ])
      .optional(),
    catalog: z.record(z.string(), modelInfoSchema).optional(),
    onEvent: fn<(event: BatonEvent) => void>('a function (event) => void').optional(),
    /** The clock (epoch milliseconds) stamped on archive records and checkpoints. Default `Date.now`. */
    now: fn<() => number>('a function () => epoch milliseconds').optional(),
    /**
     * Randomness for the jittered back-off of contended notes writes, and, when given, for the
     * suffix of checkpoint refs (default: `crypto.getRandomValues`, unguessable). Tests and
     * replays pass a seeded one so every run shows the same refs and counts the same tokens.
     * Default `Math.random` for the back-off.
     */
    random: fn<() => number>('a function () => a number in [0, 1)').optional(),
    /** Where the agent's notes live. Default: Baton's `store`. */
    notes: z
      .custom<NotesBackend>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          ['read', 'write'].every(
            (method) => typeof (value as Record<string, unknown>)[method] === 'function',
          ),
        { error: 'expected a NotesBackend (read, write; optionally version)' },
      )
      .optional(),
    /** SELFCOMPACT probes: off unless given. */
    selfCompact: selfCompactSchema.optional(),
    /**
     * Prompt-cache hints in the provider's idiom (default true): Anthropic `cache_control` and
     * Bedrock `cachePoint` breakpoints at the end of the stable prefix and on the newest message
     * before the notices, within the 4 per request counting the host's own; OpenAI
     * `prompt_cache_key` = the session id. `false` sends none (the host's own are left as they are).
     */
    promptCache: z.boolean({ error: 'expected true or false' }).default(true),
  })
  .strict();

/**
 * Options of `createBaton`. Every field is optional. The window comes from `contextWindow`, else
 * from `model` (the catalog), else from the model each call goes to (adapters read it from the
 * call), so a user names the model once.
 */
export type BatonOptions = z.input<typeof optionsSchema>;

/** What depends on the window: resolved per call when the model comes from the call. */
type WindowField = keyof WindowOptions;

/** Options after validation and defaults, for one call's window (what the engine runs with). */
export interface ResolvedOptions
  extends Omit<
      z.output<typeof optionsSchema>,
      | 'tokenizer'
      | 'store'
      | 'summarizer'
      | 'catalog'
      | 'contextWindow'
      | 'reserveOutput'
      | 'maxSummaryTokens'
      | 'notesCap'
      | 'warnAt'
      | 'targetAt'
      | 'truncateAt'
      | 'selfCompact'
      | 'now'
      | 'random'
      | 'notes'
    >,
    WindowOptions {
  notes: NotesBackend;
  now: () => number;
  random: () => number;
  /** The `random` the caller gave, for checkpoint refs; absent: refs use the platform's crypto. */
  refRandom: (() => number) | undefined;
  /** Default 0.64 (or 0.8 x compactAt when that is lower). */
  warnAt: number;
  /** Default 0.3 (or 0.375 x compactAt when that is lower). */
  targetAt: number;
  /** Default 0.9 (or compactAt when that is higher). */
  truncateAt: number;
  /** The output limit this call's request must carry: set where Baton lowered a provider default that cannot fit. */
  outputCap?: number | undefined;
  tokenizer: Tokenizer;
  store: Store;
  summarizer: Summarizer;
}

/**
 * The options `createBaton` resolved: the window fields are present when `contextWindow` or
 * `model` gave a window; with the model taken from each call, they are resolved per call.
 */
export type BatonSettings = Omit<ResolvedOptions, WindowField> &
  Partial<Pick<ResolvedOptions, WindowField>> & {
    /** What the caller gave, for the per-call resolution (call-budget.ts). */
    readonly given: GivenWindow;
  };

/** The value at `path` of what the caller passed, for the message. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * A refused value as the message shows it (`received 80` where 0.8 was meant): numbers and
 * booleans as they are (NaN too: an unset `Number(process.env.X)`), a string only where a
 * number was expected and cut short; never other strings, which may be a connection string
 * with its password passed where a store was meant.
 */
function shownValue(given: unknown, issue: z.core.$ZodIssue): string | undefined {
  if (typeof given === 'number' || typeof given === 'boolean') return String(given);
  const numeric = issue.code === 'invalid_type' && (issue.expected === 'number' || issue.expected === 'int');
  if (typeof given !== 'string' || !numeric) return undefined;
  return JSON.stringify(given.length > 24 ? `${given.slice(0, 24)}…` : given);
}

function formatIssues(error: z.ZodError, input: unknown): BatonConfigError {
  const fields: string[] = [];
  const lines = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(options)';
    fields.push(field);
    if (issue.code === 'unrecognized_keys') {
      return `unknown option(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}; accepted: ${Object.keys(optionsSchema.shape).join(', ')}`;
    }
    const expected =
      issue.code === 'invalid_value'
        ? `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
        : // zod says "expected int, received number" of 2.5: the number is what it was given.
          issue.code === 'invalid_type' && issue.expected === 'int'
          ? 'expected a whole number'
          : issue.message;
    const received = expected.includes('received')
      ? undefined
      : shownValue(valueAt(input, issue.path), issue);
    return `${field}: ${expected}${received === undefined ? '' : `, received ${received}`}`;
  });
  return new BatonConfigError(`[baton] [options] ${lines.join('; ')}`, fields);
}

/**
 * Validates options, applies defaults, resolves the window (when `contextWindow` or `model` gives
 * one) and the tokenizer. Throws `BatonConfigError` naming every bad field.
 */
export function resolveOptions(options: BatonOptions): BatonSettings {
  if (typeof options !== 'object' || options === null) {
    throw new BatonConfigError('[baton] [options] expected an options object, e.g. { model: "gpt-4o" }');
  }
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw formatIssues(parsed.error, options);
  // Unset thresholds follow a moved compactAt, so `{ compactAt: 0.5 }` alone is valid.
  const compactAt = parsed.data.compactAt;
  const o = {
    ...parsed.data,
    warnAt: parsed.data.warnAt ?? Math.min(0.64, compactAt * 0.8),
    targetAt: parsed.data.targetAt ?? Math.min(0.3, compactAt * 0.375),
    truncateAt: parsed.data.truncateAt ?? Math.max(0.9, compactAt),
  };

  const fail = (field: string, message: string) => {
    throw new BatonConfigError(`[baton] [options] ${field}: ${message}`, [field]);
  };
  if (!(o.targetAt < o.compactAt))
    fail('targetAt', `must be below compactAt (${o.compactAt}), received ${o.targetAt}`);
  if (!(o.compactAt <= o.truncateAt))
    fail('truncateAt', `must be at or above compactAt (${o.compactAt}), received ${o.truncateAt}`);
  if (!(o.warnAt <= o.compactAt))
    fail('warnAt', `must be at or below compactAt (${o.compactAt}), received ${o.warnAt}`);

  const info = o.model ? modelInfo(o.model, o.catalog as Record<string, ModelInfo> | undefined) : undefined;
  if (o.model && !info && o.contextWindow === undefined)
    fail(
      'contextWindow',
      `required: model '${o.model}' is not in the catalog (pass contextWindow, or add it with the catalog option)`,
    );
  const window = o.contextWindow ?? info?.contextWindow;
  const reserveOutput =
    window === undefined ? undefined : (o.reserveOutput ?? defaultReserve(window, info?.maxOutput));
  if (window !== undefined && reserveOutput !== undefined && reserveOutput >= window)
    fail('reserveOutput', `must be below the context window (${window}), received ${reserveOutput}`);
  const given: GivenWindow = {
    model: o.model,
    contextWindow: o.contextWindow,
    reserveOutput: o.reserveOutput,
    notesCap: o.notesCap,
    maxSummaryTokens: o.maxSummaryTokens,
    selfCompact: o.selfCompact,
    catalog: o.catalog as Record<string, ModelInfo> | undefined,
  };

  // A store that never answers must not hang prepare; the in-memory one is ours and cannot.
  const store = o.store ? boundedStore(o.store, o.storeTimeoutMs) : memoryStore();
  let tokenizer: Tokenizer;
  if (typeof o.tokenizer === 'object') tokenizer = checkedTokenizer(o.tokenizer);
  else tokenizer = gptTokenizer((o.tokenizer ?? info?.encoding ?? 'o200k_base') as EncodingName);

  const {
    contextWindow: _w,
    reserveOutput: _r,
    notesCap: _n,
    maxSummaryTokens: _m,
    selfCompact: _s,
    ...rest
  } = o;
  return {
    ...rest,
    given,
    ...(window !== undefined && reserveOutput !== undefined
      ? windowFields(given, window, reserveOutput, info?.pricing)
      : {}),
    tokenizer,
    store,
    notes: o.notes ? boundedNotes(o.notes, o.storeTimeoutMs) : storeNotes(store),
    summarizer: o.summarizer ?? extractiveSummarizer(),
    now: o.now ?? Date.now,
    random: o.random ?? Math.random,
    refRandom: o.random,
  };
}

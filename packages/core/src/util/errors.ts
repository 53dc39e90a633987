import type { z } from 'zod/v4';

/**
 * Thrown synchronously at the boundary when options are invalid. The message names the
 * field and what it accepts, e.g. `[baton] [options] compactAt: expected a share of the input budget in (0, 1], e.g. 0.8 for 80%, received 80`.
 */
export class BatonConfigError extends Error {
  override readonly name: string = 'BatonConfigError';
  /** Dotted path of every offending field. */
  readonly fields: string[];
  constructor(message: string, fields: string[] = []) {
    super(message);
    this.fields = fields;
  }
}

/**
 * Thrown when a model call reaches Baton without a conversation it can be told apart by:
 * sharing one default session would show one conversation another's notes, notices and
 * archive. `host` names the adapter, `how` says how to pass an id there.
 */
export class BatonSessionError extends BatonConfigError {
  override readonly name = 'BatonSessionError';
  constructor(host: string, how: string) {
    super(`[baton] [${host}] no session id for this call: ${how}`, ['sessionId']);
  }
}

/**
 * Thrown (as the rejection of `Session.prepare`, the first call's) when no context window is
 * known for a call: `createBaton` was given neither `contextWindow` nor `model`, and the model
 * the call goes to is not in the catalog (or the host's call names none). The message says how
 * to pass the window, e.g. `[baton] [budget] model 'my-llm' is not in the catalog: pass
 * contextWindow (tokens) in Baton's options, or describe the model with the catalog option`.
 * Baton's options are the same whichever factory takes them (`createBaton`, `batonMiddleware`,
 * `batonProcessor`), so the message names none.
 */
export class BatonModelError extends BatonConfigError {
  override readonly name = 'BatonModelError';
  /** The model id the call named, when it named one. */
  readonly model: string | undefined;
  constructor(model: string | undefined, provider?: string) {
    super(
      model
        ? `[baton] [budget] model '${model}'${provider ? ` (provider ${provider})` : ''} is not in the catalog: pass contextWindow (tokens) in Baton's options, or describe the model with the catalog option, e.g. { catalog: { '${model}': { contextWindow: 128000, encoding: 'o200k_base' } } }`
        : "[baton] [budget] no context window for this call: the call names no model Baton can read; pass contextWindow (tokens) or model in Baton's options, e.g. { model: 'gpt-4o' } or { contextWindow: 128000 }",
      ['contextWindow'],
    );
    this.model = model;
  }
}

/**
 * Thrown (as the rejection of `Session.prepare`) when the input is not the shape Baton's types
 * describe: an entry whose `parts` is `null`, a text part whose text is a number, a tool call
 * without an id. Refused before any work, so the session is as it was and the next call with a
 * valid history proceeds normally. The message names the entry and the field, never its content,
 * e.g. `[baton] [input] entries[3].parts[0].text: expected a string, received number (entry key "m-3")`.
 */
export class BatonInputError extends Error {
  override readonly name = 'BatonInputError';
  /** Path of the offending field from the `prepare` input: `entries[3].parts[0].text`, `system`, `tools[1].name`. */
  readonly path: string;
  /** Index of the offending entry in `entries`, when the problem is in one. */
  readonly entryIndex: number | undefined;
  /** That entry's `key`, when it has a string one. */
  readonly entryKey: string | undefined;
  constructor(message: string, path: string, entryIndex?: number, entryKey?: string) {
    super(message);
    this.path = path;
    this.entryIndex = entryIndex;
    this.entryKey = entryKey;
  }
}

/**
 * Validates the options of a factory (a store, an adapter) with its zod schema; a bad value
 * throws `BatonConfigError` naming the factory and the first offending field.
 */
export function parseOptions<S extends z.ZodType>(schema: S, options: unknown, factory: string): z.output<S> {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String) ?? [];
  throw new BatonConfigError(`[baton] [${factory}] ${path.join('.') || 'options'}: ${issue?.message}`, path);
}

/** Renders any thrown value as a short single-line message for events (never content of entries). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 500);
  if (typeof error === 'string') return error.slice(0, 500);
  try {
    return JSON.stringify(error).slice(0, 500);
  } catch {
    return String(error).slice(0, 500);
  }
}

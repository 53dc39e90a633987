import type { z } from 'zod/v4';

/**
 * Thrown synchronously at the boundary when options are invalid. The message names the
 * field and what it accepts, e.g. `[baton] [options] compactAt: expected a number in (0, 1], received 1.5`.
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

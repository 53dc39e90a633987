/**
 * How a store bridge writes a value into a backend that keeps JSON (LangGraph's `PostgresStore`
 * and `@mastra/pg` keep `jsonb`): as it is, or as its JSON text when it holds NUL, which `jsonb`
 * refuses (LangGraph) or silently strips (`@mastra/pg`). The text form escapes NUL as the six
 * characters `\u0000`, which every backend holds, so what is read back is byte-identical. The
 * common case stays readable in the backend's own tools.
 */
export type JsonBackendForm<T> = { value: T; json?: undefined } | { json: string; value?: undefined };

/** A detached copy of `value` in the form a JSON backend holds. */
export function toJsonBackend<T>(value: T): JsonBackendForm<T> {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('[baton] [store] a value with no JSON form cannot be stored');
  return json.includes(NUL_ESCAPE) ? { json } : { value: JSON.parse(json) as T };
}

/** The value a `toJsonBackend` form holds, as a detached copy; `undefined` for anything else. */
export function fromJsonBackend<T>(form: unknown): T | undefined {
  if (typeof form !== 'object' || form === null) return undefined;
  const { json, value } = form as { json?: unknown; value?: unknown };
  if (typeof json === 'string') return JSON.parse(json) as T;
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as T);
}

/** JSON.stringify writes U+0000 as this escape (never raw). */
const NUL_ESCAPE = '\\u0000';

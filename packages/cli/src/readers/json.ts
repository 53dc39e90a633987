/** A parsed JSON object, its fields not yet checked. */
export type Json = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

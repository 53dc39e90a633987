import type { Store } from '../contracts/store.ts';
import { BatonConfigError } from '../util/errors.ts';

/** An unpaired UTF-16 surrogate. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** `text` with each lone surrogate written as its `\uXXXX` escape: a string every store keeps apart. */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATES, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * True when `text` holds a lone surrogate. Such a string has no UTF-8 form: SQLite and Postgres
 * store it as U+FFFD, so 'p\uD800', 'p\uDC00' and 'p\uFFFD' would name one row.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

function refuse(message: string, field: string): Promise<never> {
  return Promise.reject(new BatonConfigError(`[baton] [store] ${message}`, [field]));
}

/** Why an id cannot name a row, or undefined. */
function idProblem(what: string, id: unknown): string | undefined {
  if (typeof id !== 'string') return `${what} must be a string, received ${typeof id}`;
  if (hasLoneSurrogate(id))
    return `${what} ${JSON.stringify(id)} holds a lone surrogate (no UTF-8 form, so it cannot be kept apart from others)`;
  return undefined;
}

/**
 * A store whose arguments are checked the same way whatever the backend: ids that would fold
 * into another's row (lone surrogates) and search limits or ranges that are not whole numbers
 * are refused with `BatonConfigError`, instead of each backend answering -1, NaN or 1.5 its own
 * way. Baton's stores are built through it; a store you write can be too.
 *
 * @example
 * export function redisStore(client: Redis): Store {
 *   return checkedStore({ getDocument, putDocument, appendArchive, getArchive, rangeArchive, searchArchive });
 * }
 */
export function checkedStore<S extends Store>(store: S): S {
  const ids = (...pairs: Array<[string, unknown]>) => {
    for (const [what, id] of pairs) {
      const problem = idProblem(what, id);
      if (problem) return problem;
    }
    return undefined;
  };
  // The checks shadow the store's methods; everything else (close, migrate, a class's prototype
  // methods) is reached through the prototype, so a class-based store keeps all of it.
  const checked: Store = {
    getDocument(namespace, key) {
      const problem = ids(['namespace', namespace], ['key', key]);
      return problem ? refuse(problem, 'key') : store.getDocument(namespace, key);
    },
    ...(store.documentVersion
      ? {
          documentVersion(namespace: string, key: string) {
            const problem = ids(['namespace', namespace], ['key', key]);
            return problem ? refuse(problem, 'key') : store.documentVersion!(namespace, key);
          },
        }
      : {}),
    putDocument(namespace, key, value, expectedVersion) {
      const problem = ids(['namespace', namespace], ['key', key]);
      if (problem) return refuse(problem, 'key');
      if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
        return refuse(
          `expectedVersion must be a whole number of at least 0, received ${String(expectedVersion)}`,
          'expectedVersion',
        );
      return store.putDocument(namespace, key, value, expectedVersion);
    },
    appendArchive(sessionId, records) {
      const problem = ids(
        ['session id', sessionId],
        ...records.map((r): [string, unknown] => ['ref', r?.ref]),
      );
      return problem ? refuse(problem, 'sessionId') : store.appendArchive(sessionId, records);
    },
    getArchive(sessionId, ref) {
      const problem = ids(['session id', sessionId], ['ref', ref]);
      return problem ? refuse(problem, 'ref') : store.getArchive(sessionId, ref);
    },
    rangeArchive(sessionId, from, to) {
      const problem = ids(['session id', sessionId]);
      if (problem) return refuse(problem, 'sessionId');
      if (Number.isNaN(from) || Number.isNaN(to) || typeof from !== 'number' || typeof to !== 'number')
        return refuse(`a range needs numbers, received ${String(from)}..${String(to)}`, 'from');
      return store.rangeArchive(sessionId, from, to);
    },
    searchArchive(sessionId, query, limit) {
      const problem = ids(['session id', sessionId]);
      if (problem) return refuse(problem, 'sessionId');
      if (typeof query !== 'string')
        return refuse(`a search query must be a string, received ${typeof query}`, 'query');
      if (!Number.isInteger(limit) || limit < 0)
        return refuse(
          `search limit must be a whole number of at least 0, received ${String(limit)}`,
          'limit',
        );
      return store.searchArchive(sessionId, query, limit);
    },
  };
  return Object.assign(Object.create(store) as S, checked);
}

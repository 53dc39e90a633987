import type { Decision } from './ledger.ts';

// Decisions reach the ledger from custom stages and come back from stores: both are outside
// the type system. A malformed one is refused with its reason before anything applies it
// (applying first turned a stage's `decisions: [null]` into a TypeError out of `prepare`).

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isPartList = (value: unknown) =>
  Array.isArray(value) && value.every((part) => isObject(part) && typeof part.type === 'string');

function entryProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'an entry is not an object';
  if (typeof value.key !== 'string') return 'an entry has no string key';
  if (typeof value.seq !== 'number' || !Number.isFinite(value.seq))
    return `entry ${value.key} has no finite seq`;
  if (typeof value.role !== 'string' || !ROLES.has(value.role)) return `entry ${value.key} has no valid role`;
  if (!isPartList(value.parts)) return `entry ${value.key} has no list of parts`;
  return undefined;
}

/** Why `value` is not a decision the ledger can apply, or undefined when it is one. */
export function decisionProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `a decision is ${value === null ? 'null' : typeof value}, not an object`;
  if (typeof value.stage !== 'string') return 'a decision names no stage';
  if (value.kind === 'fold') {
    if (typeof value.key !== 'string') return 'a fold decision has no string key';
    if (!isPartList(value.parts)) return `the fold of ${value.key} has no list of parts`;
    return undefined;
  }
  if (value.kind === 'replace') {
    if (
      !Array.isArray(value.keys) ||
      value.keys.length === 0 ||
      !value.keys.every((k) => typeof k === 'string')
    )
      return 'a replace decision has no list of string keys';
    if (!Array.isArray(value.entries)) return 'a replace decision has no list of entries';
    for (const entry of value.entries as unknown[]) {
      const problem = entryProblem(entry);
      if (problem) return problem;
    }
    return undefined;
  }
  return `a decision has kind ${JSON.stringify(value.kind)}, not "fold" or "replace"`;
}

/** The decisions, or the first reason one of them is malformed. */
export function checkDecisions(value: unknown): { decisions: Decision[] } | { problem: string } {
  if (!Array.isArray(value)) return { problem: 'decisions is not an array' };
  for (const decision of value) {
    const problem = decisionProblem(decision);
    if (problem) return { problem };
  }
  return { decisions: value as Decision[] };
}

/** Why a stored ledger document is unusable, or undefined when it is a ledger. */
export function ledgerProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `the stored ledger is ${value === null ? 'null' : typeof value}`;
  const checked = checkDecisions(value.decisions);
  return 'problem' in checked ? `the stored ledger is corrupt: ${checked.problem}` : undefined;
}

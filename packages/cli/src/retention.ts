import type { Entry } from '@baton/core';
import { entryIdentifiers, entryText } from '@baton/core/internals';

/** An identifier the agent used at a call, and where it first appeared. */
export interface NeededReference {
  identifier: string;
  /** Index (in the transcript) of the tool result or user message that first showed it. */
  firstAt: number;
}

/** How far back a needed identifier first appeared, in messages. */
export type Distance = 'up to 10' | '11 to 50' | 'over 50';
const distanceOf = (messages: number): Distance =>
  messages <= 10 ? 'up to 10' : messages <= 50 ? '11 to 50' : 'over 50';

export interface RetentionCounts {
  needed: number;
  /** In the prompt the policy sent (a prompt over the budget retains nothing: the provider refuses it). */
  inPrompt: number;
  /** In the prompt, or one recall away. */
  recallable: number;
}

export interface RetentionTotals extends RetentionCounts {
  byDistance: Record<Distance, RetentionCounts>;
}

const emptyCounts = (): RetentionCounts => ({ needed: 0, inPrompt: 0, recallable: 0 });

/**
 * Each entry's text, rendered once: a long replay searches the same entries in every prompt of
 * every policy, and rendering them anew at each call made garbage that grew with the history.
 */
const renderedText = new WeakMap<Entry, string>();
function textOf(entry: Entry): string {
  let text = renderedText.get(entry);
  if (text === undefined) {
    text = entryText(entry);
    renderedText.set(entry, text);
  }
  return text;
}

/** Where each identifier first appears in a transcript, shared by the policies scored on it. */
const firstIndexes = new WeakMap<readonly Entry[], Map<string, number>>();

/**
 * Reference retention, measured without a model: when the agent's message at a call uses an
 * identifier (a path, a symbol, an error code, an id, a number, a quoted string) that first
 * appeared in an earlier tool result or user message, the agent needed it there; a policy
 * retained it if the prompt it sent for that call contains it. Identifiers the agent wrote
 * first, or the system prompt gave, are not counted: no policy can lose them from the task.
 *
 * @example
 * const retention = referenceRetention(entries);
 * for (const at of modelCalls(entries)) retention.record(at, promptTextOf(at), { overBudget });
 * retention.scoreRecall((identifier) => archivedText.includes(identifier)); // once, at the end
 * retention.totals.inPrompt / retention.totals.needed;
 */
export function referenceRetention(entries: readonly Entry[]) {
  const texts = entries.map(textOf);
  const totals: RetentionTotals = {
    ...emptyCounts(),
    byDistance: { 'up to 10': emptyCounts(), '11 to 50': emptyCounts(), 'over 50': emptyCounts() },
  };
  /** References recorded as neither in the prompt nor recallable, for `scoreRecall`. */
  let unrecalled: Array<{ identifier: string; distance: Distance }> = [];

  /**
   * Where an identifier first appears before `at`, or -1. The first occurrence in the whole
   * transcript does not depend on `at`, so each identifier is searched for once, not on every
   * call that uses it (which was quadratic in a long session).
   */
  const firstIndex = firstIndexes.get(entries) ?? new Map<string, number>();
  firstIndexes.set(entries, firstIndex);
  const firstSeen = (identifier: string, at: number): number => {
    let first = firstIndex.get(identifier);
    if (first === undefined) {
      first = texts.findIndex((text) => text.includes(identifier));
      firstIndex.set(identifier, first);
    }
    return first >= 0 && first < at ? first : -1;
  };

  /** What the call producing `entries[at]` needed from earlier tool results and user messages. */
  function needed(at: number): NeededReference[] {
    const answer = entries[at];
    if (!answer) return [];
    const references: NeededReference[] = [];
    for (const identifier of entryIdentifiers(answer)) {
      const firstAt = firstSeen(identifier, at);
      const source = entries[firstAt];
      if (source && (source.role === 'tool' || source.role === 'user'))
        references.push({ identifier, firstAt });
    }
    return references;
  }

  /**
   * Scores one call: `prompt` is everything the model received (system prompt, messages,
   * notices) as text, or a test of whether it holds an identifier (a prompt that holds the
   * whole history holds every one: building its text on every call is quadratic);
   * `recallable` says whether the policy can still bring an identifier back.
   */
  function record(
    at: number,
    prompt: string | ((identifier: string) => boolean),
    {
      overBudget = false,
      recallable,
    }: { overBudget?: boolean; recallable?: (identifier: string) => boolean } = {},
  ): Array<NeededReference & { inPrompt: boolean }> {
    const holds = typeof prompt === 'string' ? (identifier: string) => prompt.includes(identifier) : prompt;
    return needed(at).map(({ identifier, firstAt }) => {
      const inPrompt = !overBudget && holds(identifier);
      const canRecall = inPrompt || recallable?.(identifier) === true;
      const distance = distanceOf(at - firstAt);
      for (const counts of [totals, totals.byDistance[distance]]) {
        counts.needed++;
        if (inPrompt) counts.inPrompt++;
        if (canRecall) counts.recallable++;
      }
      // A call over the budget is refused: nothing in it is recalled, whatever is archived later.
      if (!canRecall && !overBudget) unrecalled.push({ identifier, distance });
      return { identifier, firstAt, inPrompt };
    });
  }

  /**
   * Scores every reference recorded as neither in its prompt nor recallable against what the
   * policy can recall once the run is over: one archive read instead of one per call. Exact
   * for an archive written ahead of each prompt (Baton's): what a prompt within the budget
   * lacked had been evicted, so archived, before that prompt was sent. References of calls over
   * the budget are left out (the call is refused), and each reference is counted once, however
   * often this is called.
   */
  function scoreRecall(recallable: (identifier: string) => boolean): void {
    unrecalled = unrecalled.filter(({ identifier, distance }) => {
      if (!recallable(identifier)) return true;
      totals.recallable++;
      totals.byDistance[distance].recallable++;
      return false;
    });
  }

  return { needed, record, scoreRecall, totals };
}

/** A share as a percentage with one decimal, or 'n/a' when nothing was needed. */
export const retentionShare = (part: number, whole: number): string =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;

/** Everything a model receives in one call, as the text the metric searches. */
export function promptText(prompt: { system?: string; entries: readonly Entry[]; trailer?: string }): string {
  return [prompt.system ?? '', ...prompt.entries.map(textOf), prompt.trailer ?? ''].join('\n');
}

/**
 * Whether a prompt holds an identifier, searched message by message: the same answer as
 * `promptText(prompt).includes(identifier)` for identifiers within one message (none spans a
 * line break), without building the prompt's text, a large string per call and policy that
 * made a long replay's memory grow with its calls.
 *
 * @example retention.record(at, promptHolds(prepared));
 */
export function promptHolds(prompt: {
  system?: string;
  entries: readonly Entry[];
  trailer?: string;
}): (identifier: string) => boolean {
  return (identifier) =>
    (prompt.system ?? '').includes(identifier) ||
    prompt.entries.some((entry) => textOf(entry).includes(identifier)) ||
    (prompt.trailer ?? '').includes(identifier);
}

/**
 * The retention columns of a table explained in one sentence, with how many references were
 * needed; `columns` names the in-prompt and the recallable column as the table heads them.
 *
 * @example
 * retentionNote(2281, ['refs in prompt', 'or recallable']);
 */
export function retentionNote(needed: number, [inPrompt, recallable]: readonly [string, string]): string {
  const times = needed === 1 ? 'once' : `${needed.toLocaleString('en-US')} times`;
  // The count first: after the list of what counts as an identifier it read as part of it.
  return `References: ${times}, the agent used an identifier (a path, a symbol, an error code, an id, a number, a quoted string) that an earlier tool result or user message had shown first; '${inPrompt}' is the share the prompt the policy sent still held (none when over the budget), '${recallable}' adds those in the policy's archive, one recall away.`;
}

import type { ResolvedOptions } from '../budget/options.ts';
import type { EvictedSpan, Notice } from '../contracts/prepared.ts';
import type { SessionState } from '../contracts/session-state.ts';
import { nextWarning } from '../controller/controller.ts';
import { previewChars } from '../ladder/stages/degrade.ts';
import { FOLD_STAGE } from '../ladder/stages/fold-tool-results.ts';
import { recallRangeHint, recallRefHint, resultRef } from '../ladder/stages/spans.ts';
import { messagesHeld } from '../transcript/seq-ranges.ts';
import {
  type Entry,
  entryText,
  inputText,
  outputText,
  squash,
  toolCalls,
  toolResults,
} from '../transcript/transcript.ts';
import { formatTokens as fmt } from '../util/format.ts';

/** A line's worth of what a span held: its tool calls with arguments, else the first words. */
export function describeSpan(entries: readonly Entry[]): string {
  const calls = entries.flatMap(toolCalls);
  if (calls.length > 0) {
    const shown = calls.slice(0, 3).map((c) => `${c.name}(${squash(inputText(c.input), 60)})`);
    return `${shown.join(', ')}${calls.length > 3 ? ` and ${calls.length - 3} more call${calls.length === 4 ? '' : 's'}` : ''}`;
  }
  const results = entries.flatMap(toolResults);
  if (results.length > 0) {
    return results.map((r) => `${r.name} result (${fmt(outputText(r.output).length)} chars)`).join(', ');
  }
  const first = entries.find((e) => entryText(e).trim().length > 0);
  return first
    ? `${first.role}: "${squash(entryText(first), 80)}"`
    : `${entries.length} message${entries.length === 1 ? '' : 's'}`;
}

export function warningNotice(tokens: number, budget: number, compactAt: number): Notice {
  const left = Math.max(0, compactAt - tokens);
  return {
    type: 'warning',
    text:
      `[baton] Context is at ${Math.round((tokens / budget) * 100)}% of its budget (${fmt(tokens)} of ${fmt(budget)} tokens); ` +
      `compaction starts in about ${fmt(left)} tokens. Before then, save what you must keep: write it with the notes tool ` +
      '(notes survive compaction verbatim), or call compact with an instruction naming what to keep and it runs before your next step.',
    facts: { kind: 'warning', tokens, budget, tokensLeft: left },
  };
}

/** "read_file ×12, grep ×3": the tools of folded results, most frequent first. */
function toolCounts(entries: readonly Entry[]): string {
  const counts = new Map<string, number>();
  for (const result of entries.flatMap(toolResults))
    counts.set(result.name, (counts.get(result.name) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => (n === 1 ? name : `${name} ×${n}`))
    .join(', ');
}

/**
 * The spans no later span of the same compaction absorbed (`EvictedSpan.absorbed`): one whose
 * entries, and those it absorbed itself, another span took in has no line of its own.
 */
function standing(spans: readonly EvictedSpan[]): EvictedSpan[] {
  const takenIn = new Map<Entry, number>();
  for (const span of spans)
    for (const entry of span.absorbed ?? []) takenIn.set(entry, (takenIn.get(entry) ?? 0) + 1);
  // Most compactions absorb nothing: every span stands.
  if (takenIn.size === 0) return [...spans];
  return spans.filter((span) => {
    const own = new Set(span.absorbed);
    const told = [...span.entries, ...own];
    return !told.every((entry) => (takenIn.get(entry) ?? 0) - (own.has(entry) ? 1 : 0) > 0);
  });
}

/** A span as its notice line tells it: with the entries it absorbed, in order, and their range. */
function withAbsorbed(span: EvictedSpan): EvictedSpan {
  if (!span.absorbed?.length) return span;
  const entries = [...span.entries, ...span.absorbed].sort((a, b) => a.seq - b.seq);
  return { stage: span.stage, from: entries[0]!.seq, to: entries.at(-1)!.seq, entries };
}

export function evictionNotice(spans: readonly EvictedSpan[], tokensFreed: number): Notice {
  const stages = [...new Set(spans.map((s) => s.stage))].join(', ');
  // A span a later one of the same compaction took in (a fold then dropped) is on that one's line.
  const listed = standing(spans).map(withAbsorbed);
  // A folded result stays in place as a placeholder naming its size, first line and recall
  // ref, so the index gives the folds one line: repeating every ref here would cost as much
  // as the placeholders (a fifth of a prompt after a long loop), paid again on every notice.
  const folds = listed.filter((span) => span.stage === FOLD_STAGE);
  const lines = listed
    .filter((span) => span.stage !== FOLD_STAGE)
    .map((span) => {
      const single = span.entries.length === 1 && span.from === span.to;
      const how = single ? recallRefHint(span.entries[0]!.key) : recallRangeHint(span.from, span.to);
      const range = span.from === span.to ? `seq ${span.from}` : `seq ${span.from}-${span.to}`;
      // Host messages, as the summary's heading and a truncation marker count them: a digest or
      // an earlier summary in the span stands for every message it replaced.
      const held = messagesHeld(span.entries);
      return `- ${range} (${span.stage}, ${held} message${held === 1 ? '' : 's'}): ${describeSpan(span.entries)} -> ${how}`;
    });
  if (folds.length > 0) {
    const from = Math.min(...folds.map((s) => s.from));
    const to = Math.max(...folds.map((s) => s.to));
    const results = folds.flatMap((s) => s.entries);
    lines.unshift(
      `- ${from === to ? `seq ${from}` : `seq ${from}-${to}`} (${FOLD_STAGE}, ${results.length} tool result${results.length === 1 ? '' : 's'}): ${toolCounts(results)}; each is now a one-line placeholder in place, with its recall ref`,
    );
  }
  return {
    type: 'eviction',
    text: [
      `[baton] Context was compacted before this step (${stages}; ${tokensFreed > 0 ? `${fmt(tokensFreed)} tokens freed` : 'no net tokens freed'}). Evicted, and archived verbatim:`,
      ...lines,
      'Get anything back with recall({ "ref": … }), recall({ "from": …, "to": … }) or recall({ "query": "words" }); large results page with "offset" and "limit".',
    ].join('\n'),
    facts: {
      kind: 'eviction',
      stages: [...new Set(spans.map((s) => s.stage))],
      spans: listed.map((span) => ({
        stage: span.stage,
        from: span.from,
        to: span.to,
        messages: messagesHeld(span.entries),
      })),
      tokensFreed,
    },
  };
}

/** "4 tool results were", "1 message was", "1 message and 2 tool results were". */
function counted(items: ReadonlyArray<{ entry: Entry }>): string {
  const messages = items.filter((item) => item.entry.role === 'user').length;
  const results = items.length - messages;
  const phrase = [
    messages > 0 ? `${messages} message${messages === 1 ? '' : 's'}` : '',
    results > 0 ? `${results} tool result${results === 1 ? '' : 's'}` : '',
  ]
    .filter((part) => part.length > 0)
    .join(' and ');
  return `${phrase} ${items.length === 1 ? 'was' : 'were'}`;
}

export function degradeNotice(entries: readonly Entry[], shown: number): Notice {
  const items = entries
    .flatMap((entry) =>
      entry.role === 'user'
        ? [{ what: `your user's message`, entry, ref: entry.key, chars: entryText(entry).length }]
        : toolResults(entry).map((result) => ({
            what: result.name,
            entry,
            ref: resultRef(entry, result.callId),
            chars: outputText(result.output).length,
          })),
    )
    .filter(({ chars }) => chars > shown);
  return {
    type: 'degrade',
    text: [
      `[baton] ${counted(items)} too large for the context window and ${items.length === 1 ? 'is' : 'are'} shown as head/tail previews (the full text is archived):`,
      ...items.map(
        ({ what, entry, ref, chars }) =>
          `- ${what} (seq ${entry.seq}): ${fmt(shown)} of ${fmt(chars)} chars shown; read the rest with recall({ "ref": ${JSON.stringify(ref)}, "offset": 0, "limit": 8000 }) or find a passage with recall({ "query": "words" })`,
      ),
    ].join('\n'),
    facts: { kind: 'degrade', previews: items.map(({ entry, chars }) => ({ seq: entry.seq, chars, shown })) },
  };
}

export function unfitNotice(reason: string, checkpointRef: string, tokens: number, budget: number): Notice {
  return {
    type: 'unfit',
    text:
      `[baton] The previous step could not fit the context window (${fmt(tokens)} tokens needed, ${fmt(budget)} available): ${reason}. ` +
      `That turn was ended instead of failing. A checkpoint of your notes, the compaction ledger and the archive index was saved as ${JSON.stringify(checkpointRef)}. ` +
      'Continue from your notes; use recall to read archived content in smaller pages, and keep tool outputs small (ask for ranges, filter, or summarise).',
    facts: { kind: 'unfit', tokens, budget, checkpointRef },
  };
}

export const NOTICES_HEADING = '## Context notices (this step only)';

/** The block of notices rendered at the end of the system prompt. */
export function renderNotices(notices: readonly Notice[]): string {
  if (notices.length === 0) return '';
  return [NOTICES_HEADING, ...notices.map((n) => n.text)].join('\n\n');
}

/**
 * Tokens the `added` notices put on a trailer already holding `shown`: their texts, the joins,
 * and the heading when they are the first (plus one for rounding the calibrated counts).
 */
export function addedNoticeTokens(
  count: (text: string) => number,
  shown: readonly Notice[],
  added: readonly Notice[],
): number {
  if (added.length === 0) return 0;
  return count(renderNotices([...shown, ...added])) - count(renderNotices(shown)) + 1;
}

/** How the message an `unfit` step ends with begins: hosts store it, and Baton never re-sends it. */
export const UNFIT_STEP_PREFIX = '[baton] This step was not sent to the model';

/**
 * Whether an entry is the reply of an `unfit` step that a host stored (the thread, a memory):
 * an assistant entry whose only content is text starting with `UNFIT_STEP_PREFIX`. The host's
 * history may keep it for its users; `prepare` drops it from every projection, since the agent
 * reads the unfit notice instead (DESIGN.md, agent-facing surface).
 *
 * @example
 * isUnfitStepEntry(createEntry(4, 'assistant', [{ type: 'text', text: unfitStepMessage(unfit) }])); // true
 */
export function isUnfitStepEntry(entry: Entry): boolean {
  if (entry.role !== 'assistant' || entry.parts.length === 0) return false;
  if (!entry.parts.every((part) => part.type === 'text')) return false;
  return entryText(entry).trimStart().startsWith(UNFIT_STEP_PREFIX);
}

/**
 * What a host ends an `unfit` step with, in every adapter, in words an end user can act on:
 * the step was not sent, why, that nothing was lost, and what to do next. (The agent reads
 * the unfit notice on the next turn; the checkpoint ref is for whoever investigates.)
 */
export function unfitStepMessage(unfit: { reason: string; checkpointRef: string }): string {
  return (
    `${UNFIT_STEP_PREFIX}: the conversation no longer fits the model's context window (${unfit.reason}). ` +
    'Nothing was lost: the full history is kept. Send a shorter message or fewer attachments, or start a new conversation; ' +
    `the agent continues from its notes (checkpoint ${JSON.stringify(unfit.checkpointRef)}).`
  );
}

/** The eviction notice (every span but degrade's) and the degrade notice, for what one ladder run did. */
export function compactionNotices(
  spans: readonly EvictedSpan[],
  tokensFreed: number,
  inputBudget: number,
): Notice[] {
  const notices: Notice[] = [];
  const evictions = spans.filter((s) => s.stage !== 'degrade');
  const degraded = standing(spans).filter((s) => s.stage === 'degrade');
  if (evictions.length > 0) notices.push(evictionNotice(evictions, tokensFreed));
  if (degraded.length > 0) {
    notices.push(
      degradeNotice(
        degraded.flatMap((span) => span.entries),
        previewChars(inputBudget),
      ),
    );
  }
  return notices;
}

/** The last call's unfit outcome, told once: its notice, taken out of the state (the caller persists). */
export function takeUnfitNotice(state: SessionState): Notice | undefined {
  if (!state.unfit) return undefined;
  const { reason, checkpointRef, tokens, budget } = state.unfit;
  delete state.unfit;
  return unfitNotice(reason, checkpointRef, tokens, budget);
}

/**
 * The warning decided on what the model reads this step (`tokens`, notices so far included):
 * its notice when due, the episode's flag updated in the state. `changed`: the caller persists.
 * A warning that would itself push the prompt past the budget (`fits` says no) waits for a
 * call with room for it: shown, it would end this one `unfit` when nothing was over.
 */
export function warningStep(
  state: SessionState,
  compacted: boolean,
  tokens: number,
  options: ResolvedOptions,
  fits: (notice: Notice) => boolean = () => true,
): { notice: Notice | undefined; changed: boolean } {
  const budget = options.inputBudget;
  const warning = nextWarning(state.warned, compacted, tokens, options);
  const due = warning.show ? warningNotice(tokens, budget, options.compactAt * budget) : undefined;
  const notice = due && fits(due) ? due : undefined;
  // Due but not shown: the episode has not been told yet (nextWarning shows only when not warned).
  const warned = due && !notice ? false : warning.warned;
  const changed = warned !== state.warned;
  state.warned = warned;
  return { notice, changed };
}

import { type BatonEvent, gptTokenizer } from '@baton/core';
import { isNoticesText } from '@baton/core/internals';
import { filler } from '@baton/testing';

/**
 * The 90-step loop the cache-prefix tests drive through every adapter: a file-reading agent
 * that writes its notes through its own tool every 15 steps, while another worker writes the
 * same session's notes at step 45. Warnings and evictions come on their own (a 16k window).
 */
export const LOOP_STEPS = 90;
export const LOOP_WINDOW = 16_000;
/** Written by "another worker" when the agent reads this step's file. */
export const EXTERNAL_NOTE_STEP = 45;
export const EXTERNAL_NOTE = 'deploy window moved to Friday 14:00 UTC';

export type LoopTurn = { calls: Array<{ name: string; input: unknown }> } | { text: string };

/** What the agent does at a step (0-based model call). */
export function loopTurn(step: number): LoopTurn {
  if (step >= LOOP_STEPS - 1) return { text: 'done' };
  if (step % 15 === 10)
    return {
      calls: [
        { name: 'notes', input: { action: 'append', section: 'progress', text: `read ${step} files` } },
      ],
    };
  return { calls: [{ name: 'read_file', input: { path: `src/module_${step}.ts` } }] };
}

/** The read_file tool's output for a path (deterministic, about 1,500 characters). */
export function fileBody(path: string): string {
  const n = Number(/(\d+)/.exec(path)?.[1] ?? 0);
  return `// ${path}\n${filler(1_500, n)}`;
}

/**
 * Marks which model calls compacted: the adapter's `prepare` runs right before the model is
 * called, so a `stage-completed` event seen since the last call (and no `compaction-skipped`
 * after it) belongs to this one.
 */
export function compactionTracker() {
  let pending = false;
  return {
    onEvent(event: BatonEvent) {
      if (event.type === 'stage-completed') pending = true;
      // The ladder ran but freed too little to be worth the cache write: nothing changed.
      if (event.type === 'compaction-skipped') pending = false;
    },
    /** Called by the scripted model at each call: whether this call's prepare compacted. */
    take(): boolean {
      const compacted = pending;
      pending = false;
      return compacted;
    },
  };
}

/** One model call as the provider received it: each message serialized, and whether it compacted. */
export interface LoopCall {
  messages: string[];
  compacting: boolean;
}

const tokenizer = gptTokenizer('o200k_base');

/**
 * What a provider cache would serve: for each call that did not compact, the tokens of the
 * leading messages it shares byte for byte with the call before, as a share of that earlier
 * prompt (caches match whole prefixes) without its trailing notices, which are read once and
 * never part of the next prompt (DESIGN.md invariant 12). Mean, minimum, and the share of calls
 * that compacted.
 */
export function prefixReport(calls: readonly LoopCall[]) {
  const tokens = (message: string) => tokenizer.count(message) + 4;
  const shares: number[] = [];
  for (let i = 1; i < calls.length; i++) {
    if (calls[i]!.compacting) continue;
    const sent = calls[i - 1]!.messages;
    const previous = isTrailingNotices(sent.at(-1)) ? sent.slice(0, -1) : sent;
    const current = calls[i]!.messages;
    let shared = 0;
    let total = 0;
    let matching = true;
    previous.forEach((message, k) => {
      const size = tokens(message);
      total += size;
      if (matching && current[k] === message) shared += size;
      else matching = false;
    });
    shares.push(shared / total);
  }
  const compacting = calls.filter((c) => c.compacting).length;
  return {
    calls: calls.length,
    compacting,
    compactingShare: compacting / calls.length,
    mean: shares.reduce((a, b) => a + b, 0) / shares.length,
    min: Math.min(...shares),
  };
}

/**
 * Whether a serialized message is Baton's trailing notices: a user message whose only text
 * starts with their heading (the AI SDK and Mastra prompt, or LangChain's `{ type, text }`).
 */
function isTrailingNotices(serialized: string | undefined): boolean {
  if (serialized === undefined) return false;
  const message = JSON.parse(serialized) as {
    role?: string;
    type?: string;
    text?: string;
    content?: string | Array<{ type: string; text?: string }>;
  };
  if (message.role !== 'user' && message.type !== 'human') return false;
  const { content } = message;
  const text =
    message.text ??
    (typeof content === 'string'
      ? content
      : content?.length === 1 && content[0]?.type === 'text'
        ? content[0].text
        : undefined);
  return isNoticesText(text);
}

/** What the model read at one call: its system messages' text and Baton's trailing notices. */
export interface LoopView {
  system: string;
  trailer: string;
}

/**
 * Everything the loop must show through an adapter, as a list of what went wrong (empty when
 * all holds): the cache rule's numbers (`prefixReport`: mean >= 95%, min >= 80%, at most 15%
 * of calls compacting, at least 3 compactions), Baton's words only after the conversation,
 * the outside notes change as a trailing notice on every call until a compaction puts it in
 * the notes block, and the agent's own writes in that block after a compaction.
 */
export function loopViolations(calls: readonly LoopCall[], seen: readonly LoopView[]): string[] {
  const problems: string[] = [];
  const report = prefixReport(calls);
  if (calls.length !== LOOP_STEPS) problems.push(`${calls.length} calls, expected ${LOOP_STEPS}`);
  if (report.compacting < 3) problems.push(`only ${report.compacting} compactions`);
  if (report.compactingShare > 0.15) problems.push(`${report.compacting} of ${report.calls} calls compacted`);
  if (report.mean < 0.95) problems.push(`shared prefix averages ${report.mean.toFixed(3)}`);
  if (report.min < 0.8) problems.push(`shared prefix falls to ${report.min.toFixed(3)}`);
  if (!seen.some((s) => s.trailer.includes('Context is at')))
    problems.push('no warning after the conversation');
  if (!seen.some((s) => s.trailer.includes('Context was compacted')))
    problems.push('no eviction notice after the conversation');
  seen.forEach((s, i) => {
    if (s.system.includes('[baton]')) problems.push(`call ${i}: a notice in the system prompt`);
  });
  // The first call after the outside write tells it, and so does every call until a compaction
  // folds it into the notes block (which may be that very call).
  const changed = EXTERNAL_NOTE_STEP + 1;
  const folded = calls.findIndex((c, i) => i >= changed && c.compacting);
  if (folded < 0) problems.push('no compaction after the outside notes change');
  for (let i = changed; i < folded; i++) {
    if (!seen[i]!.trailer.includes(EXTERNAL_NOTE))
      problems.push(`call ${i}: the outside notes change is not told`);
    if (seen[i]!.system.includes(EXTERNAL_NOTE))
      problems.push(`call ${i}: the notes block changed between compactions`);
  }
  if (folded >= 0) {
    if (!seen[folded]!.system.includes(EXTERNAL_NOTE))
      problems.push(`call ${folded}: the compaction did not re-render the notes`);
    if (seen[folded]!.trailer.includes(EXTERNAL_NOTE))
      problems.push(`call ${folded}: the notes change told again`);
  }
  if (!seen.at(-1)?.system.includes('read 70 files'))
    problems.push("the agent's own notes never reached the notes block");
  return problems;
}

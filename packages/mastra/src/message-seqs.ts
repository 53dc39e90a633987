import type { PromptMessage } from '@baton/core/internals';

/**
 * A message as Mastra stores it (`MastraDBMessage`), as far as seqs need it: one stored user
 * message is one prompt message; one stored assistant turn becomes its steps' assistant and
 * tool messages.
 */
export interface StoredMessage {
  id: string;
  role: string;
  createdAt: unknown;
  content: {
    parts?: ReadonlyArray<{ type: string; text?: string; toolInvocation?: { toolCallId?: string } }>;
  };
}

/**
 * Seqs per millisecond of a stored message's time: the prompt messages one stored message
 * becomes (two per step: the step's assistant message and its tool results) take the seqs
 * after its own, and the next stored message, created at least a millisecond later, starts
 * past them up to 500 steps.
 */
export const SEQS_PER_MS = 1_000;

type StoredPart = NonNullable<StoredMessage['content']['parts']>[number];

const timeOf = (value: unknown): number =>
  value instanceof Date
    ? value.getTime()
    : typeof value === 'string' || typeof value === 'number'
      ? new Date(value).getTime()
      : Number.NaN;

/** The tool call ids a prompt message carries (its calls, or the calls its results answer). */
function callIdsOf(message: PromptMessage): Set<string> {
  const ids = new Set<string>();
  if (typeof message.content === 'string') return ids;
  for (const part of message.content)
    if ((part.type === 'tool-call' || part.type === 'tool-result') && typeof part.toolCallId === 'string')
      ids.add(part.toolCallId);
  return ids;
}

function firstTextOf(message: PromptMessage): string | undefined {
  if (typeof message.content === 'string') return message.content;
  const part = message.content.find((p) => p.type === 'text');
  return typeof part?.text === 'string' ? part.text : undefined;
}

/**
 * The step of a stored assistant turn that holds the part `matches` finds: the `step-start`
 * parts before it. Counted, not indexed: Mastra drops `updateWorkingMemory` calls from a turn
 * once it is stored, and a step left with none of its parts keeps its `step-start`, so the
 * steps after it keep their number while the parts shift.
 */
function stepOf(message: StoredMessage, matches: (part: StoredPart) => boolean): number | undefined {
  let step = 0;
  for (const part of message.content.parts ?? []) {
    if (part.type === 'step-start') step++;
    else if (matches(part)) return step;
  }
  return undefined;
}

/**
 * Seqs for the prompt Mastra hands to `processLLMRequest`, from the stored messages it was
 * built from (`messageList.get.all.db()`), so that a message keeps its seq while the
 * `lastMessages` window slides over the thread. A position in the prompt changes at every
 * slide: decisions and the archive then gave one seq to messages of many turns, and a
 * `recall({ from, to })` that a summary or notice advertised returned turns from all over the
 * conversation.
 *
 * A prompt message's seq is its stored message's time since `epoch` (the thread's creation) in
 * `SEQS_PER_MS` units, plus its place in that message: a user message is the message itself;
 * step k of an assistant turn is its assistant message at 2k and its tool results at 2k + 1.
 * The stored message is found by tool call id (a step's calls and results), else as the next
 * stored user message, or the assistant turn holding the text. System messages and messages
 * that match none get no seq here (the converter numbers them after the message before).
 */
export function storedMessageSeqs(
  prompt: readonly PromptMessage[],
  stored: readonly StoredMessage[],
  epoch: number,
): Map<PromptMessage, number> {
  const ordered = stored
    .map((message, index) => ({ message, index, time: timeOf(message.createdAt) }))
    .filter((item) => Number.isFinite(item.time))
    .sort((a, b) => a.time - b.time || a.index - b.index);
  const owners = new Map<string, number>();
  ordered.forEach(({ message }, index) => {
    for (const part of message.content.parts ?? []) {
      const id = part.toolInvocation?.toolCallId;
      if (typeof id === 'string') owners.set(id, index);
    }
  });
  const next = (after: number, matches: (message: StoredMessage) => boolean) => {
    for (let i = after + 1; i < ordered.length; i++) if (matches(ordered[i]!.message)) return i;
    return undefined;
  };
  const isText = (text: string | undefined) => (part: StoredPart) =>
    part.type === 'text' && part.text === text;
  const holdsText = (message: StoredMessage | undefined, text: string | undefined) =>
    message !== undefined && stepOf(message, isText(text)) !== undefined;

  const seqs = new Map<PromptMessage, number>();
  let at = -1;
  for (const message of prompt) {
    if (message.role === 'system') continue;
    const ids = callIdsOf(message);
    let owner = [...ids].map((id) => owners.get(id)).find((index) => index !== undefined);
    let place: number | undefined;
    if (owner !== undefined) {
      const step = stepOf(ordered[owner]!.message, (part) => ids.has(part.toolInvocation?.toolCallId ?? ''));
      place = step === undefined ? undefined : 2 * step + (message.role === 'tool' ? 1 : 0);
    } else if (message.role === 'user') {
      owner = next(at, (m) => m.role === 'user');
      place = 0;
    } else {
      // A step's text: in the assistant turn being read, else the next one that holds it.
      const text = firstTextOf(message);
      const current = ordered[at]?.message;
      owner = holdsText(current, text) ? at : next(at, (m) => m.role === 'assistant' && holdsText(m, text));
      const step = owner === undefined ? undefined : stepOf(ordered[owner]!.message, isText(text));
      place = step === undefined ? undefined : 2 * step;
    }
    if (owner === undefined) continue;
    at = owner;
    if (place === undefined) continue;
    const since = Math.max(0, ordered[owner]!.time - epoch);
    seqs.set(message, since * SEQS_PER_MS + place);
  }
  return seqs;
}

/** The thread's creation time, the origin of its seqs (0 when Mastra did not say: seqs are then absolute). */
export function epochOf(thread: { createdAt?: unknown } | undefined): number {
  const time = timeOf(thread?.createdAt);
  return Number.isFinite(time) ? time : 0;
}

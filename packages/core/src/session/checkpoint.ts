import type { Notes } from '../agent/notes.ts';
import { unfitStepMessage } from '../agent/notices.ts';
import type { Engine } from '../budget/engine.ts';
import type { BatonEventBody } from '../contracts/events.ts';
import type { Store } from '../contracts/store.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { NoteSection } from '../stores/notes-backend.ts';
import { buildGroups } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';
import { describeError } from '../util/errors.ts';
import { formatTokens } from '../util/format.ts';
import type { SessionRecord } from './session-record.ts';

/** What an `unfit` outcome leaves behind, so the work can go on from durable state. */
export interface Checkpoint {
  ref: string;
  sessionId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  reason: string;
  tokens: number;
  budget: number;
  notes: NoteSection[];
  /** The ledger as it stood: what was folded, summarized or dropped. */
  ledger: { version: number; decisions: number };
  /** Seq ranges held by the archive, by stage (recall brings any of them back). */
  archived: Array<{ stage: string; from: number; to: number }>;
}

const NAMESPACE = 'baton/checkpoint';

export async function writeCheckpoint(
  store: Store,
  checkpoint: Omit<Checkpoint, 'ref'>,
  sequence: number,
  random?: () => number,
): Promise<string> {
  // Unguessable: a ref is shown to the model and may reach logs; knowing one session's refs
  // must not let anyone name another's. A caller's own `random` (a replay, a test) makes them
  // repeatable instead.
  const ref = `${checkpoint.sessionId}/checkpoint-${sequence}-${randomHex(random)}`;
  const put = await store.putDocument<Checkpoint>(NAMESPACE, ref, { ...checkpoint, ref }, 0);
  if (!put.ok) throw new Error(`checkpoint ${ref} already exists`);
  return ref;
}

/** A checkpoint of `sessionId`: another session's ref reads nothing. */
export async function readCheckpoint(
  store: Store,
  sessionId: string,
  ref: string,
): Promise<Checkpoint | undefined> {
  const checkpoint = (await store.getDocument<Checkpoint>(NAMESPACE, ref))?.value;
  return checkpoint?.sessionId === sessionId ? checkpoint : undefined;
}

function randomHex(random?: () => number): string {
  const bytes = new Uint8Array(8);
  if (random) for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256) & 0xff;
  else globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The archived ranges a ledger stands for. */
export function archivedRanges(ledger: Ledger): Checkpoint['archived'] {
  return ledger.decisions.flatMap((d) =>
    d.span ? [{ stage: d.stage, from: d.span[0], to: d.span[1] }] : [],
  );
}

/**
 * Writes the checkpoint of an `unfit` outcome: the notes, the ledger's size and the archived
 * ranges, so the work can go on from durable state. A store failure is an event, and the
 * returned ref says the checkpoint was not persisted.
 */
export async function checkpointSession(
  engine: Engine,
  record: SessionRecord,
  notes: Notes,
  unfit: { reason: string; tokens: number },
  emit: (event: BatonEventBody) => void,
): Promise<string> {
  const { store, inputBudget } = engine.options;
  const sequence = ++record.state.checkpoints;
  record.touch();
  try {
    return await writeCheckpoint(
      store,
      {
        sessionId: record.id,
        createdAt: engine.options.now(),
        reason: unfit.reason,
        tokens: unfit.tokens,
        budget: inputBudget,
        notes: await notes.sections(),
        ledger: { version: record.ledgerVersion, decisions: record.ledger.decisions.length },
        archived: archivedRanges(record.ledger),
      },
      sequence,
      engine.options.refRandom,
    );
  } catch (error) {
    emit({ type: 'store-failed', operation: 'writeCheckpoint', error: describeError(error) });
    return `${record.id}/checkpoint-${sequence} (not persisted: the store failed)`;
  }
}

/**
 * Why a prompt cannot fit: what filled it, largest first, the parts adding up to its `tokens`.
 * What is not the conversation or the trailing notices is the system prompt with the notes and
 * the tool definitions with the request's framing: one share, as the floor names it.
 */
export function unfitReason(
  engine: Engine,
  prompt: { entries: readonly Entry[]; tokens: number; trailer?: string },
  budget: number,
): string {
  const { counter } = engine;
  const tokensOf = (entries: readonly Entry[]) => entries.reduce((sum, e) => sum + counter.count(e), 0);
  const groups = buildGroups(prompt.entries, engine.pinPolicy);
  const notices = prompt.trailer ? counter.text(prompt.trailer) : 0;
  const conversation = tokensOf(groups.filter((g) => g.kind !== 'system').flatMap((g) => g.entries));
  const shares: Array<{ what: string; tokens: number }> = [
    { what: 'system prompt, tools and notes', tokens: Math.max(0, prompt.tokens - conversation - notices) },
  ];
  if (notices > 0) shares.push({ what: "this step's notices", tokens: notices });
  const pinned = new Map<string, number>();
  const named = new Set<(typeof groups)[number]>();
  for (const group of groups) {
    if (!group.pinned) continue;
    named.add(group);
    const name = `pinned tool ${group.toolNames[0] ?? 'entries'}`;
    pinned.set(name, (pinned.get(name) ?? 0) + tokensOf(group.entries));
  }
  for (const [what, tokens] of pinned) shares.push({ what, tokens });
  const opening = groups.find((g) => g.firstRequest && !g.latestRequest && !g.pinned);
  if (opening) {
    named.add(opening);
    shares.push({ what: 'the opening request', tokens: tokensOf(opening.entries) });
  }
  const latest = groups.find((g) => g.latestRequest);
  if (latest) {
    named.add(latest);
    shares.push({ what: 'the current request', tokens: tokensOf(latest.entries) });
  }
  const newest = groups.at(-1);
  if (newest && !named.has(newest)) {
    named.add(newest);
    shares.push({ what: 'the newest step', tokens: tokensOf(newest.entries) });
  }
  const rest = tokensOf(groups.filter((g) => !named.has(g) && g.kind !== 'system').flatMap((g) => g.entries));
  if (rest > 0) shares.push({ what: 'the rest of the conversation', tokens: rest });
  // Largest first: the reason names what actually fills the window before anything else.
  const parts = shares
    .sort((a, b) => b.tokens - a.tokens)
    .map(({ what, tokens }) => `${what} ${formatTokens(tokens)} tokens`);
  return `${parts.join(' + ')} exceed the ${formatTokens(budget)}-token budget even after every stage (protected content is never evicted)`;
}

/**
 * An unfit outcome made durable: the checkpoint written, and the state told so the next call
 * carries the unfit notice. Returns the checkpoint's ref.
 */
export async function recordUnfit(
  engine: Engine,
  record: SessionRecord,
  notes: Notes,
  unfit: { reason: string; tokens: number; budget: number },
  emit: (event: BatonEventBody) => void,
): Promise<string> {
  const { reason, tokens, budget } = unfit;
  const checkpointRef = await checkpointSession(engine, record, notes, { reason, tokens }, emit);
  record.state.unfit = { reason, checkpointRef, tokens, budget };
  record.touch();
  return checkpointRef;
}

/**
 * A prompt over the budget even after the ladder: the reason (largest part first), a
 * `budget-exceeded` event, the checkpoint written and the message the adapter ends the step
 * with. Never an exception.
 */
export async function unfitOutcome(
  engine: Engine,
  record: SessionRecord,
  notes: Notes,
  prompt: { entries: readonly Entry[]; tokens: number; trailer?: string },
  emit: (event: BatonEventBody) => void,
): Promise<{ reason: string; checkpointRef: string; message: string }> {
  const budget = engine.options.inputBudget;
  const reason = unfitReason(engine, prompt, budget);
  emit({ type: 'budget-exceeded', tokens: prompt.tokens, budget, reason });
  const checkpointRef = await recordUnfit(
    engine,
    record,
    notes,
    { reason, tokens: prompt.tokens, budget },
    emit,
  );
  return { reason, checkpointRef, message: unfitStepMessage({ reason, checkpointRef }) };
}

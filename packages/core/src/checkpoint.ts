import type { Ledger } from './ledger.ts';
import type { NoteSection } from './notes.ts';
import type { Store } from './store.ts';

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
): Promise<string> {
  const ref = `${checkpoint.sessionId}/checkpoint-${sequence}`;
  const put = await store.putDocument<Checkpoint>(NAMESPACE, ref, { ...checkpoint, ref }, 0);
  if (!put.ok) throw new Error(`checkpoint ${ref} already exists`);
  return ref;
}

export async function readCheckpoint(store: Store, ref: string): Promise<Checkpoint | undefined> {
  return (await store.getDocument<Checkpoint>(NAMESPACE, ref))?.value;
}

/** The archived ranges a ledger stands for. */
export function archivedRanges(ledger: Ledger): Checkpoint['archived'] {
  return ledger.decisions.flatMap((d) =>
    d.span ? [{ stage: d.stage, from: d.span[0], to: d.span[1] }] : [],
  );
}

import type { Notice } from '../contracts/prepared.ts';
import type { SessionState } from '../contracts/session-state.ts';
import { hash64 } from '../util/hash.ts';

/** What the notes contribute to one call: the cached block, and a trailing notice when they changed elsewhere. */
export interface NotesPlacement {
  /** The notes block after the host's system prompt: the rendering of the last compaction. */
  block: string;
  /** The notes as they are now, when they differ from what the model knows of (else undefined). */
  notice?: Notice;
}

export function notesChangedNotice(current: string): Notice {
  return {
    type: 'notes',
    text:
      current.length === 0
        ? '[baton] Your notes were cleared outside your notes tool (by another worker or the host) since they were last shown in your system prompt.'
        : `[baton] Your notes were changed outside your notes tool (by another worker or the host) since they were last shown in your system prompt. They now read:\n\n${current}`,
    facts: { kind: 'notes', cleared: current.length === 0, chars: current.length },
  };
}

/**
 * What a call passes for the notes when the host shows them itself (`renderNotes: false`:
 * Mastra's working-memory message): they are the host's to render and keep current, so there
 * is no block of Baton's, no notice and nothing recorded. Passed as an empty rendering, they
 * were compared with what the agent last wrote through its notes tool and told as cleared on
 * every call while the host showed them.
 */
export const HOST_SHOWS_NOTES = null;

/**
 * The cache rule for notes. The block sits in the cached prefix, so it is re-rendered only
 * when a compaction breaks that prefix anyway (or on a session's first call); between
 * compactions every call, on every worker, sends the bytes persisted in the state. A change
 * the agent made with its own notes tool is in its history already (the call and its
 * result: `noteWritten` records it as known). Any other change (another worker's agent, the
 * host's memory tool, an operator) reaches the model as a trailing notice on every call
 * until the next compaction folds it into the block.
 *
 * `current` is the notes rendered now, undefined when they could not be read (the block
 * stays as it was, no notice), or `HOST_SHOWS_NOTES`. Mutates `state.notes`; returns whether
 * it changed.
 */
export function placeNotes(
  state: SessionState,
  current: string | typeof HOST_SHOWS_NOTES | undefined,
  compacted: boolean,
): NotesPlacement & { stateChanged: boolean } {
  if (current === HOST_SHOWS_NOTES) return { block: '', stateChanged: false };
  const shown = state.notes;
  if (current !== undefined && (shown === undefined || (compacted && shown.block !== current))) {
    state.notes = { block: current, known: hash64(current) };
    return { block: current, stateChanged: true };
  }
  if (shown === undefined) return { block: '', stateChanged: false };
  if (current === undefined || hash64(current) === shown.known)
    return { block: shown.block, stateChanged: false };
  return { block: shown.block, notice: notesChangedNotice(current), stateChanged: false };
}

/**
 * The agent changed its notes through its own tool, from `before` to `after` (rendered): its
 * history shows that change, so it knows `after` if it knew `before`. When it did not (a
 * change from elsewhere is still being told), nothing is learnt: the notice goes on showing
 * the notes whole, the agent's change included.
 */
export function noteWritten(state: SessionState, before: string, after: string): boolean {
  if (state.notes === undefined) return false; // the first call renders them whole
  if (state.notes.known !== hash64(before)) return false;
  const known = hash64(after);
  if (state.notes.known === known) return false;
  state.notes = { ...state.notes, known };
  return true;
}

import type { BatonSettings } from '../budget/options.ts';
import type { Session } from './session.ts';

/** The options of the `createBaton` each session came from (adapters resolve sessions, not Batons). */
const optionsOf = new WeakMap<Session, BatonSettings>();

/** Records which options a session runs under (`createBaton` does, for every session it makes). */
export function registerSessionOptions(session: Session, options: BatonSettings): Session {
  optionsOf.set(session, options);
  return session;
}

/**
 * Whether a session's calls carry prompt-cache hints (`promptCache`, default true): what an
 * adapter that was handed only the session reads before placing breakpoints.
 */
export function promptCacheOf(session: Session): boolean {
  return optionsOf.get(session)?.promptCache ?? true;
}

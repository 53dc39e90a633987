import { unfitStepMessage } from '../agent/notices.ts';
import type { Prepared } from '../contracts/prepared.ts';
import type { Session } from './session.ts';

/** Why a step could not be sent, where its checkpoint is, and the text the host ends the step with. */
export interface UnfitInfo {
  reason: string;
  checkpointRef: string;
  /** Rendered by core, the same in every adapter. */
  message: string;
}

export interface OverflowRecoverySpec<A, T> {
  /** The prepared first attempt (whatever the adapter needs to make the call). */
  attempt: A;
  /** The `Prepared` behind an attempt. */
  prepared(attempt: A): Prepared;
  /** Prepares again after the provider rejected the request (the session now compacts harder). */
  reprepare(): Promise<A>;
  /** Makes the model call; `retry` is true for the second attempt. */
  call(attempt: A, retry: boolean): T | PromiseLike<T>;
  /** The host's graceful ending for an `unfit` step: never called with the model. */
  unfit(info: UnfitInfo): T;
}

/** What a host needs to end the step, when `prepared` is unfit. */
export function unfitOf(prepared: Prepared): UnfitInfo | undefined {
  if (prepared.outcome !== 'unfit') return undefined;
  const { reason, checkpointRef, message } = prepared;
  return { reason, checkpointRef, message };
}

/** What a host needs to end the step after `recoverFromOverflow` answered `'unfit'`. */
export function pendingUnfit(session: Session): UnfitInfo {
  const unfit = session.unfit ?? {
    reason: 'the provider rejected the request as too long twice',
    checkpointRef: '',
  };
  return { reason: unfit.reason, checkpointRef: unfit.checkpointRef, message: unfitStepMessage(unfit) };
}

/**
 * The one policy every adapter follows around a model call: an `unfit` projection is never
 * sent; a context-overflow error is recovered once (prepare again, tighter, and retry); a
 * second overflow, or an `unfit` retry, ends the step through `unfit`; any other error is
 * the host's to handle and is rethrown.
 */
export async function callWithOverflowRecovery<A, T>(
  session: Session,
  spec: OverflowRecoverySpec<A, T>,
): Promise<T> {
  const first = unfitOf(spec.prepared(spec.attempt));
  if (first) return spec.unfit(first);
  try {
    return await spec.call(spec.attempt, false);
  } catch (error) {
    const verdict = await session.recoverFromOverflow(error);
    if (verdict === 'not-overflow') throw error;
    if (verdict === 'unfit') return spec.unfit(pendingUnfit(session));
    const retry = await spec.reprepare();
    const again = unfitOf(spec.prepared(retry));
    if (again) return spec.unfit(again);
    try {
      return await spec.call(retry, true);
    } catch (second) {
      if ((await session.recoverFromOverflow(second)) === 'not-overflow') throw second;
      return spec.unfit(pendingUnfit(session));
    }
  }
}

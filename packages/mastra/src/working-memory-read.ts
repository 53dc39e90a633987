import type { BatonEvent } from '@baton/core';
import { describeError, withTimeout } from '@baton/core/internals';
import type { MastraMemory } from '@mastra/core/memory';
import type { ThreadScope } from './working-memory-notes.ts';

/**
 * Mastra's working memory, read under the store deadline (`storeTimeoutMs`) for a step that
 * re-renders it. A memory whose storage never answers would otherwise hang the model step;
 * past the deadline, or on an error, the read is reported as a `store-failed` event
 * (operation `getWorkingMemory`) and `undefined` is returned: the caller keeps the working
 * memory the run already shows (failure-open, invariant 8).
 *
 * @example
 * const text = await readWorkingMemory(memory, { threadId }, { storeTimeoutMs: 30_000, onEvent: log }, sessionId);
 * if (text !== undefined) prompt = withWorkingMemory(prompt, text);
 */
export async function readWorkingMemory(
  memory: MastraMemory,
  scope: ThreadScope,
  options: { storeTimeoutMs: number; onEvent?: ((event: BatonEvent) => void) | undefined },
  sessionId: string,
): Promise<string | undefined> {
  try {
    return (
      (await withTimeout(
        () => memory.getWorkingMemory(scope),
        options.storeTimeoutMs,
        "Mastra's working memory read",
      )) ?? ''
    );
  } catch (error) {
    try {
      options.onEvent?.({
        type: 'store-failed',
        operation: 'getWorkingMemory',
        error: describeError(error),
        sessionId,
      });
    } catch {
      // A listener's failure is the listener's: the step goes on.
    }
    return undefined;
  }
}

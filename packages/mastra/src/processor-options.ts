import { BatonConfigError, type BatonOptions } from '@baton/core';
import type { MastraMemory } from '@mastra/core/memory';
import { mastraMemoryStore } from './memory-store.ts';
import { type ThreadScope, workingMemoryNotes } from './working-memory-notes.ts';

export interface BatonProcessorOptions extends BatonOptions {
  /**
   * The agent's `Memory`. With working memory enabled, the agent's notes ARE its working
   * memory (the `notes` tool edits it, Mastra's `updateWorkingMemory` tool writes notes) and
   * every step shows its current text. Mastra passes no agent to processors, so it is given here.
   */
  memory?: MastraMemory;
  /**
   * How a run whose conversation no longer fits ends. Default `'reply'`: the step answers with
   * a plain-words explanation (stored like any reply, never re-sent to the model) and the run
   * finishes normally; `processor.unfitOf(result)` tells it apart. `'tripwire'`: the run also
   * ends with a Mastra tripwire carrying the same metadata; Mastra logs any tripwire raised
   * after the model step as a failed workflow step, with a stack trace.
   */
  unfitAs?: 'reply' | 'tripwire';
}

/**
 * Refuses processor options the core does not check (`unfitAs`, `memory`) with a
 * `BatonConfigError` naming the option, so a misconfigured agent fails at construction
 * rather than on its first long conversation.
 *
 * @example
 * assertProcessorOptions({ unfitAs: 'throw' }); // BatonConfigError: [baton] [options] unfitAs: ...
 */
export function assertProcessorOptions({ memory, unfitAs }: BatonProcessorOptions): void {
  if (unfitAs !== undefined && unfitAs !== 'reply' && unfitAs !== 'tripwire') {
    throw new BatonConfigError(
      `[baton] [options] unfitAs: expected 'reply' or 'tripwire', received ${JSON.stringify(unfitAs)}`,
      ['unfitAs'],
    );
  }
  if (memory !== undefined && typeof (memory as Partial<MastraMemory>)?.getWorkingMemory !== 'function') {
    throw new BatonConfigError(
      '[baton] [options] memory: expected the Mastra Memory the agent uses (new Memory(...) from @mastra/memory)',
      ['memory'],
    );
  }
}

/**
 * Whether the agent's notes are its working memory: a Memory given and working memory
 * enabled in its thread config. Default `false` (no Memory).
 *
 * @example
 * workingMemoryEnabled(new Memory({ options: { workingMemory: { enabled: true } } })); // true
 */
export function workingMemoryEnabled(memory: MastraMemory | undefined): boolean {
  return memory?.getMergedThreadConfig().workingMemory?.enabled === true;
}

/**
 * The core's options from the processor's: with the agent's Memory, ledger, state and archive
 * live in its storage (no second database) unless a `store` is given, and with working memory
 * the notes are working memory, in the scope `scopeOf` gives a session.
 *
 * @example
 * createBaton(coreOptionsOf(options, true, (id) => ({ threadId: id })));
 */
export function coreOptionsOf(
  options: BatonProcessorOptions,
  workingMemory: boolean,
  scopeOf: (sessionId: string) => ThreadScope,
): BatonOptions {
  const { memory, unfitAs: _unfitAs, ...core } = options;
  return {
    ...core,
    ...(memory && core.store === undefined ? { store: mastraMemoryStore(memory) } : {}),
    ...(memory && workingMemory ? { notes: workingMemoryNotes(memory, scopeOf) } : {}),
  };
}

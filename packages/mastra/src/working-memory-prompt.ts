import type { BatonEvent } from '@baton/core';
import type { MastraMemory } from '@mastra/core/memory';
import type { ProcessInputStepArgs } from '@mastra/core/processors';
import { refreshWorkingMemoryMessages, type ThreadScope, withWorkingMemory } from './working-memory-notes.ts';
import { readWorkingMemory } from './working-memory-read.ts';

type SystemMessages = Pick<
  ProcessInputStepArgs['messageList'],
  'getSystemMessages' | 'clearSystemMessages' | 'addSystem'
>;

/**
 * The cache rule for working memory: Mastra renders it once per run, in a system message
 * tagged `memory`; this puts the text a compaction of the run last rendered back in its place
 * at every step (`processInputStep`), so the prefix stays byte-stable until the next
 * compaction. Nothing changes where the message already shows `text`.
 *
 * @example
 * if (run.workingMemoryShown !== undefined) showWorkingMemory(args.messageList, run.workingMemoryShown);
 */
export function showWorkingMemory(messageList: SystemMessages, text: string): void {
  const tagged = messageList.getSystemMessages('memory');
  const texts = tagged.map((m) => (typeof m.content === 'string' ? m.content : ''));
  const refreshed = refreshWorkingMemoryMessages(texts, text);
  if (!refreshed) return;
  messageList.clearSystemMessages('memory');
  tagged.forEach((message, i) => {
    messageList.addSystem(typeof message.content === 'string' ? (refreshed[i] as string) : message, 'memory');
  });
}

/**
 * At a compaction (the prefix breaks there anyway), the prompt with working memory as it is
 * now, read under the store deadline, and the text it shows (for this run's next steps). A
 * failed read (reported as `store-failed`) keeps what the run shows: `shown` is undefined and
 * the prompt unchanged.
 *
 * @example
 * const { prompt, shown } = await promptWithCurrentWorkingMemory(prompt, memory, scope, core.options, session.id);
 * if (shown !== undefined) run.workingMemoryShown = shown;
 */
export async function promptWithCurrentWorkingMemory<M extends { role: string; content: unknown }>(
  prompt: M[],
  memory: MastraMemory,
  scope: ThreadScope,
  options: { storeTimeoutMs: number; onEvent?: ((event: BatonEvent) => void) | undefined },
  sessionId: string,
): Promise<{ prompt: M[]; shown?: string }> {
  const text = await readWorkingMemory(memory, scope, options, sessionId);
  if (text === undefined) return { prompt };
  return { prompt: withWorkingMemory(prompt, text), shown: text };
}

import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { Session } from '@baton/core';
import {
  type PromptConversionCache as ConversionCache,
  entriesToPrompt as fromEntries,
  type PromptMessage as HostMessage,
  promptToEntries as toEntries,
} from '@baton/core/internals';
import type { Instructions, ModelMessage, SystemModelMessage } from 'ai';
import { hostModel } from './host-model.ts';

function instructionsText(instructions: Instructions | undefined): string {
  if (instructions === undefined) return '';
  if (typeof instructions === 'string') return instructions;
  const list = Array.isArray(instructions) ? instructions : [instructions];
  return list
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n\n');
}

function withBlock(instructions: Instructions | undefined, block: string): Instructions {
  if (instructions === undefined) return block;
  if (typeof instructions === 'string') return `${instructions}\n\n${block}`;
  const list = Array.isArray(instructions) ? instructions : [instructions];
  const notes: SystemModelMessage = { role: 'system', content: block };
  return [...list, notes];
}

/**
 * Rewrite mode for agent loops: each step's messages go through `prepare`; when the
 * projection differs (a compaction) the step gets a `messages` override, which the SDK
 * carries forward as the new history, and notes and notices go into `instructions`. The
 * archive is written before the override is returned. Use it instead of the middleware.
 *
 * @example
 * ```ts
 * import { createBaton } from '@baton/ai-sdk';
 * import { generateText, stepCountIs } from 'ai';
 *
 * const session = createBaton({ model: 'gpt-4o' }).session('ticket-4411');
 * await generateText({
 *   model: openai('gpt-4o'), // not wrapped: prepareStep rewrites the history instead
 *   tools: { ...tools, ...session.tools },
 *   prepareStep: session.prepareStep,
 *   stopWhen: stepCountIs(200),
 *   prompt,
 * });
 * ```
 */
export function batonPrepareStep(session: Session) {
  const cache: ConversionCache = { entries: new WeakMap() };
  return async function batonPrepareStepHook({
    messages,
    instructions,
    model,
  }: {
    messages: ModelMessage[];
    instructions?: Instructions | undefined;
    model?: unknown;
  }): Promise<{ messages?: ModelMessage[]; instructions?: Instructions }> {
    const base = instructionsText(instructions);
    // A model object (not a gateway id string) can answer probes and write summaries.
    const host =
      typeof model === 'object' && model !== null && 'doGenerate' in model
        ? hostModel(model as LanguageModelV4)
        : undefined;
    const prepared = await session.prepare({
      entries: toEntries(messages as HostMessage[], cache),
      system: base,
      ...(host ? { model: host } : {}),
    });
    return {
      ...(prepared.changed ? { messages: fromEntries(prepared.entries, cache) as ModelMessage[] } : {}),
      ...(prepared.block.length > 0 ? { instructions: withBlock(instructions, prepared.block) } : {}),
    };
  };
}

import type { HostModel } from '@baton/core';
import { entriesToPrompt, withSystemBlock } from '@baton/core/internals';
import { z } from 'zod/v4';

/** What Baton calls on the model Mastra hands to `processLLMRequest` (an AI SDK v2 language model). */
interface LanguageModelLike {
  doGenerate(options: {
    prompt: unknown[];
    responseFormat?: { type: 'json'; schema?: unknown; name?: string };
    maxOutputTokens?: number;
    abortSignal?: AbortSignal;
  }): PromiseLike<{
    content: Array<{ type: string; text?: string }>;
    usage?: { inputTokens?: number; outputTokens?: number };
  }>;
}

function isLanguageModel(model: unknown): model is LanguageModelLike {
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof (model as { doGenerate?: unknown }).doGenerate === 'function'
  );
}

const textOf = (content: Array<{ type: string; text?: string }>) =>
  content
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');

const byModel = new WeakMap<object, HostModel>();

/**
 * The agent's model as Baton's host model: a probe is one `doGenerate` with a JSON response
 * format carrying the answer's schema (the provider's structured output); a continuation
 * summary is one plain `doGenerate`. Neither goes through the agent, its processors or its
 * memory. Undefined for a model Baton cannot call directly (an unresolved router id).
 */
export function hostModelOf(model: unknown): HostModel | undefined {
  if (!isLanguageModel(model)) return undefined;
  let host = byModel.get(model);
  if (!host) {
    host = {
      judge: async ({ entries, system, prompt, schema, signal }) => {
        const result = await model.doGenerate({
          prompt: [
            ...withSystemBlock(entriesToPrompt(entries), system),
            { role: 'user', content: [{ type: 'text', text: prompt }] },
          ],
          responseFormat: { type: 'json', schema: z.toJSONSchema(schema), name: 'context_check' },
          ...(signal && { abortSignal: signal }),
        });
        return { output: textOf(result.content), ...(result.usage ? { usage: result.usage } : {}) };
      },
      complete: async ({ system, prompt, maxTokens, signal }) =>
        textOf(
          (
            await model.doGenerate({
              prompt: [
                { role: 'system', content: system },
                { role: 'user', content: [{ type: 'text', text: prompt }] },
              ],
              maxOutputTokens: maxTokens,
              ...(signal && { abortSignal: signal }),
            })
          ).content,
        ),
    };
    byModel.set(model, host);
  }
  return host;
}

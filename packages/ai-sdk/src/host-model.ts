import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { HostModel } from '@baton/core';
import { entriesToPrompt, withSystemBlock } from '@baton/core/internals';
import { generateText, type ModelMessage, Output } from 'ai';

const byModel = new WeakMap<LanguageModelV4, HostModel>();

/**
 * The wrapped model, for self-compaction probes (structured output through the SDK's
 * `Output.object`) and continuation summaries. Called on the inner model, so Baton's own
 * middleware never sees these calls.
 */
export function hostModel(model: LanguageModelV4): HostModel {
  let host = byModel.get(model);
  if (!host) {
    host = {
      judge: async ({ entries, system, prompt, schema, signal }) => {
        const messages = withSystemBlock(entriesToPrompt(entries), system) as ModelMessage[];
        const result = await generateText({
          model,
          messages: [...messages, { role: 'user', content: prompt }],
          allowSystemInMessages: true,
          output: Output.object({ schema }),
          ...(signal && { abortSignal: signal }),
        });
        return {
          output: result.output,
          usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
        };
      },
      complete: async ({ system, prompt, maxTokens, signal }) =>
        (
          await generateText({
            model,
            system,
            prompt,
            maxOutputTokens: maxTokens,
            ...(signal && { abortSignal: signal }),
          })
        ).text,
    };
    byModel.set(model, host);
  }
  return host;
}

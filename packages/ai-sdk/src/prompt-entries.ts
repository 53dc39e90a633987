import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { Entry } from '@baton/core';
import {
  type PromptConversionCache,
  type PromptKeys,
  type PromptMessage,
  promptToEntries,
} from '@baton/core/internals';
import type { ModelMessage } from 'ai';

/**
 * A prompt in any of the forms the AI SDK hands over: the provider specification's
 * `LanguageModelV4Prompt` (what a middleware or a model receives), the SDK's `ModelMessage[]`
 * (what `generateText` and `prepareStep` take), or Baton's own `HostMessage[]`.
 */
export type SdkPrompt = LanguageModelV4Prompt | readonly ModelMessage[] | readonly PromptMessage[];

/**
 * The AI SDK's prompt to neutral entries (`fromEntries` goes back). Takes the SDK's own prompt
 * types as they are: the core's conversion is structural, over a role, string or part-array
 * content and each part's `type`, and the SDK's part interfaces, which have no index signature,
 * are not assignable to its open `PromptPart` shape without this one widening.
 */
export function toEntries(messages: SdkPrompt, cache?: PromptConversionCache, keys?: PromptKeys): Entry[] {
  return promptToEntries(messages as readonly PromptMessage[], cache, keys);
}

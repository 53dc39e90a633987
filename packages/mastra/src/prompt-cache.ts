import type { Prepared, Session } from '@baton/core';
import { promptCacheKey } from '@baton/core';
import { cacheIdiomOf, type PromptMessage, promptCacheOf, withPromptCacheHints } from '@baton/core/internals';

/** What Baton reads of Mastra's model: the AI SDK model's provider and id (a router string has neither until resolved). */
function idiomOf(model: unknown) {
  const { provider, modelId } = (model ?? {}) as { provider?: unknown; modelId?: unknown };
  return typeof provider === 'string' && typeof modelId === 'string'
    ? cacheIdiomOf(provider, modelId)
    : 'none';
}

/**
 * The prompt `processLLMRequest` forwards, with Baton's breakpoints in the AI SDK provider's
 * idiom (`promptCache`, default on): Anthropic `cacheControl` / Bedrock `cachePoint` on the
 * end of the stable prefix (Mastra's system messages and Baton's notes block) and on the
 * newest message before the notices, within 4 counting the host's own. Mastra sends the tools
 * apart from the prompt, so the prefix's breakpoint sits on the last system message.
 */
export function promptWithCacheHints(
  session: Session,
  model: unknown,
  prepared: Prepared,
  prompt: PromptMessage[],
): PromptMessage[] {
  const idiom = idiomOf(model);
  if (!promptCacheOf(session) || (idiom !== 'anthropic' && idiom !== 'bedrock')) return prompt;
  return withPromptCacheHints(
    { prompt },
    {
      idiom,
      sessionId: session.id,
      entries: prepared.entries,
      system: prepared.system,
      trailer: prepared.trailer.length > 0,
    },
  ).prompt;
}

/**
 * The step's call-level providerOptions with OpenAI's `promptCacheKey` = the session id
 * (`processInputStep`: the prompt hook cannot set call options); undefined when nothing changes
 * (another provider, `promptCache: false`, or a key the host set).
 */
export function providerOptionsWithCacheKey(
  session: Session,
  model: unknown,
  providerOptions: Record<string, Record<string, unknown> | undefined> | undefined,
): Record<string, Record<string, unknown> | undefined> | undefined {
  if (!promptCacheOf(session) || idiomOf(model) !== 'openai') return undefined;
  if (providerOptions?.openai?.promptCacheKey !== undefined) return undefined;
  return {
    ...providerOptions,
    openai: { ...providerOptions?.openai, promptCacheKey: promptCacheKey(session.id) },
  };
}

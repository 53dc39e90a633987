import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { Prepared, Session } from '@baton/core';
import { cacheIdiomOf, type HintedCall, promptCacheOf, withPromptCacheHints } from '@baton/core/internals';

/**
 * A prepared call with Baton's prompt-cache hints in its provider package's idiom (`promptCache`,
 * default on): Anthropic `cacheControl` / Bedrock `cachePoint` at the end of the stable prefix and
 * on the newest message before the notices, within 4 counting the host's own; the session id as
 * OpenAI's `promptCacheKey`. Other providers' calls pass unchanged.
 */
export function withCacheHints(
  session: Session,
  model: LanguageModelV4,
  prepared: Prepared,
  params: LanguageModelV4CallOptions,
): LanguageModelV4CallOptions {
  if (!promptCacheOf(session)) return params;
  const idiom = cacheIdiomOf(model.provider, model.modelId);
  if (idiom === 'none') return params;
  return withPromptCacheHints(params as unknown as HintedCall, {
    idiom,
    sessionId: session.id,
    entries: prepared.entries,
    system: prepared.system,
    trailer: prepared.trailer.length > 0,
  }) as unknown as LanguageModelV4CallOptions;
}

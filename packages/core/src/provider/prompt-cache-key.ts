import { hash64 } from '../util/hash.ts';

/** Longest session id sent as it is. */
const MAX_KEY_LENGTH = 64;

/**
 * The key that routes one conversation's requests to the same prompt cache where caching is
 * automatic (OpenAI `prompt_cache_key`): the session id. Requests of one conversation share
 * their prefix; keyed apart from other conversations, they stop competing for one cache
 * machine. An id longer than 64 characters is sent as `baton-<64-bit hash>`: a key need only
 * identify, and a short one stays within what providers accept for identifier fields.
 *
 * @example promptCacheKey('chat-42') // 'chat-42'
 */
export function promptCacheKey(sessionId: string): string {
  return sessionId.length <= MAX_KEY_LENGTH ? sessionId : `baton-${hash64(sessionId)}`;
}

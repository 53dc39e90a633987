import { isBatonBlock, isNoticesText, type PromptMessage } from '@baton/core/internals';

/** A prompt message of any AI SDK / Mastra shape: a role and string or part-array content. */
interface MessageLike {
  role: string;
  content: unknown;
}

/**
 * Baton's notices for this call: the text of the prompt's last message when it is the
 * trailing notices message (a user message after the conversation), else ''.
 */
export function trailerOf(prompt: readonly MessageLike[]): string {
  const last = prompt.at(-1) as PromptMessage | undefined;
  if (last?.role !== 'user' || !isBatonBlock(last)) return '';
  return typeof last.content === 'string' ? last.content : String(last.content[0]?.text);
}

/** The prompt without Baton's trailing notices message: the conversation as the host keeps it. */
export function conversationOf<M extends MessageLike>(prompt: readonly M[]): M[] {
  return trailerOf(prompt) ? prompt.slice(0, -1) : [...prompt];
}

/** Whether a message text is Baton's trailing notices (for hosts whose messages are not `PromptMessage`s, e.g. LangChain's). */
export { isNoticesText };

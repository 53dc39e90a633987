import type { Entry, OpaquePart, Part } from './transcript.ts';

/**
 * Context a provider compacted on its side: Anthropic's `compaction` blocks (server-side
 * compaction, `compact_20260112`; the AI SDK hands one over as a text part marked
 * `providerOptions.anthropic.type: 'compaction'`, LangChain as a `{ type: 'compaction' }`
 * content block) and OpenAI Responses' compaction items (the AI SDK's `custom` part of kind
 * `openai.compaction`, its content encrypted). Such a block is the model's only record of what
 * came before it, and a signed or encrypted one cannot be rewritten: Baton keeps its message
 * verbatim and counts it, and no stage folds, summarizes or drops it.
 */
export function isProviderCompaction(part: Part): boolean {
  if (part.type !== 'opaque') return false;
  if (part.kind === 'compaction') return true;
  const value = part.value as { kind?: unknown; providerOptions?: { anthropic?: { type?: unknown } } } | null;
  if (typeof value !== 'object' || value === null) return false;
  if (part.kind === 'custom') return value.kind === 'openai.compaction';
  return part.kind === 'text' && value.providerOptions?.anthropic?.type === 'compaction';
}

/** True when the entry carries a provider's compaction (see `isProviderCompaction`). */
export function holdsProviderCompaction(entry: Entry): boolean {
  return entry.parts.some(isProviderCompaction);
}

/**
 * The tokens of an encrypted compaction item, which Baton cannot tokenize: its ciphertext
 * decodes to about as many bytes as the compacted text, at about four bytes a token. An
 * estimate the provider's reported usage calibrates; far closer than a flat opaque cost for a
 * compaction of a long conversation.
 */
export function encryptedCompactionTokens(part: OpaquePart): number | undefined {
  const value = part.value as { providerOptions?: { openai?: { encryptedContent?: unknown } } } | null;
  const encrypted = value?.providerOptions?.openai?.encryptedContent;
  if (typeof encrypted !== 'string' || encrypted.length === 0) return undefined;
  return Math.ceil((encrypted.length * 3) / 4 / 4);
}

/**
 * The provider-side compaction a call turns on, in words, from provider options shaped as the
 * AI SDK's (`providerOptions.anthropic.compaction` / `.contextManagement`, the compaction of
 * `providerOptions.openai.contextManagement` / `.compactionTrigger`; LangChain's ChatAnthropic
 * `contextManagement` has the anthropic shape): undefined when there is none. Clearing old
 * thinking blocks only (`clear_thinking_20251015`) is not compaction.
 */
export function providerCompactionOf(options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const { anthropic, openai } = options as {
    anthropic?: { compaction?: unknown; contextManagement?: { edits?: Array<{ type?: unknown }> } };
    openai?: { contextManagement?: Array<{ type?: unknown }> | null; compactionTrigger?: unknown };
  };
  const found: string[] = [];
  if (anthropic?.compaction) found.push('anthropic compaction');
  for (const edit of anthropic?.contextManagement?.edits ?? [])
    if (typeof edit?.type === 'string' && !edit.type.startsWith('clear_thinking'))
      found.push(`anthropic contextManagement ${edit.type}`);
  for (const item of openai?.contextManagement ?? [])
    if (item?.type === 'compaction') found.push('openai contextManagement compaction');
  if (openai?.compactionTrigger === true) found.push('openai compactionTrigger');
  return found.length > 0 ? found.join(', ') : undefined;
}

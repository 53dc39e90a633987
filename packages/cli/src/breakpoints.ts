import { type Entry, type PromptBlock, promptBlocks, type TokenCounter, withBreakpoints } from '@baton/core';

/** A prompt as an adapter sends it: system text, the projection, the trailing notices. */
export interface SentPrompt {
  system?: string;
  entries: readonly Entry[];
  trailer?: string;
}

/**
 * Block positions (into `promptBlocks` of the same prompt) where Baton places its Anthropic
 * breakpoints, as DESIGN.md states the rule: the end of the stable prefix (the system text, or
 * the host's leading system messages) and the newest conversation message before the trailing
 * notices, at most 4. A message ending in a reasoning block cannot carry one; the newest that
 * can does.
 */
export function batonBreakpointPositions(prompt: SentPrompt): number[] {
  const offset = prompt.system ? 1 : 0;
  let prefix = prompt.system ? 0 : -1;
  let leading = 0;
  while (prompt.entries[leading]?.role === 'system') leading++;
  if (leading > 0) prefix = offset + leading - 1;
  let newest = prompt.entries.length - 1;
  while (newest >= leading && !markable(prompt.entries[newest]!)) newest--;
  const positions = prefix >= 0 ? [prefix] : [];
  if (newest >= leading) positions.push(offset + newest);
  return positions;
}

function markable(entry: Entry): boolean {
  const last = entry.parts.at(-1);
  return last !== undefined && !(last.type === 'opaque' && /reasoning|thinking/.test(last.kind));
}

/**
 * The prompt's blocks with Baton's breakpoints marked (`'5m'` lifetimes): what the provider
 * receives from an adapter whose breakpoints are on.
 *
 * @example meter.bill({ prompt: batonPromptBlocks(prepared, counter) })
 */
export function batonPromptBlocks(prompt: SentPrompt, counter: TokenCounter): PromptBlock[] {
  return withBreakpoints(promptBlocks(prompt, counter), batonBreakpointPositions(prompt));
}

/** The same prompt as a host that sets no breakpoints sends it. */
export function withoutBreakpoints(blocks: readonly PromptBlock[]): PromptBlock[] {
  return blocks.map(({ breakpoint: _, ...block }) => block);
}

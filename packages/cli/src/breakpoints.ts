import {
  cacheBreakpoints,
  type Entry,
  type PromptBlock,
  promptBlocks,
  type TokenCounter,
  withBreakpoints,
} from '@baton/core';

/** A prompt as an adapter sends it: system text, the projection, the trailing notices. */
export interface SentPrompt {
  system?: string;
  entries: readonly Entry[];
  trailer?: string;
}

/**
 * Block positions (into `promptBlocks` of the same prompt) where Baton places its Anthropic
 * breakpoints: core's `cacheBreakpoints` (the end of the stable prefix, and the newest
 * conversation message before the trailing notices, within the 4-breakpoint cap). A replayed
 * transcript carries no tool schemas, so a breakpoint on the tools is never placed.
 */
export function batonBreakpointPositions(prompt: SentPrompt): number[] {
  const system = prompt.system ?? '';
  const offset = system ? 1 : 0;
  return cacheBreakpoints({ entries: prompt.entries, system, tools: 0 }).flatMap((breakpoint) =>
    breakpoint.at === 'system' ? [0] : breakpoint.at === 'entry' ? [offset + breakpoint.index] : [],
  );
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

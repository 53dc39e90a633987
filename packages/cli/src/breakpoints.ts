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
  let blocks = entryBlocks.get(counter);
  if (!blocks) {
    blocks = new WeakMap();
    entryBlocks.set(counter, blocks);
  }
  const known = blocks;
  const [head = [], tail = []] = [
    promptBlocks({ ...(prompt.system ? { system: prompt.system } : {}), entries: [] }, counter),
    promptBlocks({ ...(prompt.trailer ? { trailer: prompt.trailer } : {}), entries: [] }, counter),
  ];
  const body = prompt.entries.map((entry) => {
    let block = known.get(entry);
    if (!block) {
      block = promptBlocks({ entries: [entry] }, counter)[0] as PromptBlock;
      known.set(entry, block);
    }
    return block;
  });
  return withBreakpoints([...head, ...body, ...tail], batonBreakpointPositions(prompt));
}

/**
 * Each entry's block, made once per counter: a replay bills the whole history for the
 * no-compaction baseline at every call, and the meters keep the last prompts, so blocks made
 * anew each call were garbage that outlived young collections and grew with the history.
 */
const entryBlocks = new WeakMap<TokenCounter, WeakMap<Entry, PromptBlock>>();

/** The same prompt as a host that sets no breakpoints sends it. */
export function withoutBreakpoints(blocks: readonly PromptBlock[]): PromptBlock[] {
  // Unmarked blocks are passed as they are (a copy of each would be garbage per call).
  return blocks.map((block) => {
    if (block.breakpoint === undefined) return block;
    const { breakpoint: _, ...bare } = block;
    return bare;
  });
}

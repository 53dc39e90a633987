import { createAnthropic } from '@ai-sdk/anthropic';
import { NOTICES_HEADING } from '@baton/core/internals';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import { anthropicWire, type WireBody } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { cacheRulesFor, costMeter, gptTokenizer, type PromptBlock } from './index.ts';
import { runWireLoop } from './wire-loop.test-support.ts';

interface AnthropicBlock {
  type: string;
  text?: string;
  cache_control?: { type: string; ttl?: '5m' | '1h' };
}
interface AnthropicMessage {
  role: string;
  content: string | AnthropicBlock[];
}

const tokenizer = gptTokenizer();

/**
 * A Messages API request body as Anthropic's cache sees it: tools, system blocks, then every
 * content block of every message, in that order, each block one prompt block (its bytes without
 * `cache_control`, which does not change what is cached) carrying its breakpoint when marked.
 */
function anthropicBlocks(body: WireBody): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (where: string, { cache_control, ...rest }: AnthropicBlock) => {
    const bytes = JSON.stringify(rest);
    blocks.push({
      id: `${where}:${bytes}`,
      tokens: tokenizer.count(bytes),
      ...(cache_control ? { breakpoint: cache_control.ttl ?? '5m' } : {}),
    });
  };
  for (const tool of (body.tools ?? []) as AnthropicBlock[]) add('tool', tool);
  const system = body.system as string | AnthropicBlock[] | undefined;
  for (const block of typeof system === 'string' ? [{ type: 'text', text: system }] : (system ?? []))
    add('system', block);
  for (const message of body.messages as AnthropicMessage[]) {
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const [i, block] of content.entries())
      add(i === 0 ? `${message.role} message` : message.role, block);
  }
  return blocks;
}

/** The blocks before Baton's trailing notices (a text block that opens with their heading). */
function beforeNotices(blocks: readonly PromptBlock[]): readonly PromptBlock[] {
  const at = blocks.findIndex((b) => b.id.includes(JSON.stringify(NOTICES_HEADING).slice(0, -1)));
  return at === -1 ? blocks : blocks.slice(0, at);
}

/** Tokens up to and including the prompt's last breakpoint: what it leaves in the cache. */
function cachedPrefix(blocks: readonly PromptBlock[]): number {
  const last = blocks.findLastIndex((b) => b.breakpoint !== undefined);
  return blocks.slice(0, last + 1).reduce((sum, b) => sum + b.tokens, 0);
}

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  '@ai-sdk/anthropic requests billed by Anthropic rules',
  () => {
    it("read all that each request repeats of the previous one from the cache, with Baton's breakpoints as sent", async () => {
      const transcript = loadReplayCorpus().find((t) => t.name === 'coding-claude-code-gomod')!;
      const result = await runWireLoop({
        transcript,
        wire: anthropicWire,
        model: (fetch) => createAnthropic({ apiKey: 'test-key', fetch })('claude-sonnet-4-5'),
        format: 'anthropic',
        contextWindow: 32_000,
        maxOutputTokens: 2048,
        stream: true,
      });
      expect(result.failedTurns).toEqual([]);
      expect(result.compactions).toBeGreaterThan(0);
      // Claude Sonnet 4.5's prices per million tokens, passed here: $3 input, $3.75 5-minute write, $0.30 read.
      const meter = costMeter({
        pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
        rules: cacheRulesFor('claude-sonnet-4-5')!,
      });
      const bare = costMeter({
        pricing: { input: 3, output: 15 },
        rules: cacheRulesFor('claude-sonnet-4-5')!,
      });
      let input = 0;
      let cached = 0;
      let steady = 0;
      let previous: readonly PromptBlock[] = [];
      for (const [i, request] of result.accepted.entries()) {
        const prompt = anthropicBlocks(request.body);
        expect(prompt.filter((b) => b.breakpoint).length, `request ${i}`).toBeGreaterThan(0);
        const billed = meter.bill({ prompt, at: i * 5_000 });
        expect(bare.bill({ prompt: prompt.map(({ breakpoint: _, ...b }) => b) }).cachedTokens).toBe(0);
        // Between compactions each request repeats the previous one up to its notices (Baton's
        // cache rule); the others are where a compaction rewrote the prompt.
        const repeated = beforeNotices(previous);
        const repeats = repeated.length > 0 && repeated.every((b, k) => prompt[k]?.id === b.id);
        // What the previous request left in the cache is read whole, from real breakpoints as
        // @ai-sdk/anthropic sent them: byte-stable, and within the 20-block lookback.
        if (repeats && cachedPrefix(previous) >= 1_024)
          expect(billed.cachedTokens, `request ${i}`).toBe(cachedPrefix(previous));
        previous = prompt;
        if (!repeats) continue;
        steady++;
        input += billed.inputTokens;
        cached += billed.cachedTokens;
      }
      console.info(
        `[billing] @ai-sdk/anthropic, gomod at 32k: ${steady} of ${result.accepted.length} requests repeat the previous one; they read ${((100 * cached) / input).toFixed(1)}% of ${input} input tokens from the cache; all requests $${meter.totals.cost.toFixed(4)}, $${bare.totals.cost.toFixed(4)} with no breakpoints`,
      );
      expect(steady).toBeGreaterThan(result.accepted.length / 2);
      expect(meter.totals.cost).toBeLessThan(bare.totals.cost);
    });
  },
);

import { createEntry, fromOpenAIChat, gptTokenizer, TokenCounter } from '@baton/core';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import { describe, expect, it } from 'vitest';
import { batonBreakpointPositions, batonPromptBlocks } from './breakpoints.ts';
import { replay } from './replay.ts';

describe("Baton's breakpoints", () => {
  const counter = new TokenCounter(gptTokenizer(), 512);
  const system = createEntry(0, 'system', 'You audit logs.');
  const user = createEntry(1, 'user', 'Audit all pages.');
  const call = createEntry(2, 'assistant', [
    { type: 'tool-call', id: 'c1', name: 'read', input: { page: 1 } },
  ]);
  const result = createEntry(3, 'tool', [{ type: 'tool-result', callId: 'c1', name: 'read', output: 'ok' }]);

  it('mark the end of the stable prefix and the newest message before the notices', () => {
    // Prepared.system (host prompt + notes block) is the first block; the trailer stays unmarked.
    const prompt = { system: 'S + notes', entries: [user, call, result], trailer: 'warning' };
    expect(batonBreakpointPositions(prompt)).toEqual([0, 3]);
    const blocks = batonPromptBlocks(prompt, counter);
    expect(blocks.map((b) => b.breakpoint)).toEqual(['5m', undefined, undefined, '5m', undefined]);
    // The host's system messages leading the entries are the stable prefix when there is no system text.
    expect(batonBreakpointPositions({ entries: [system, user, call, result] })).toEqual([0, 3]);
    expect(batonBreakpointPositions({ entries: [system] })).toEqual([0]);
    // A message ending in reasoning cannot carry one: the newest that can does.
    const thinking = createEntry(4, 'assistant', [
      { type: 'opaque', kind: 'reasoning', value: {}, text: 'hm' },
    ]);
    expect(batonBreakpointPositions({ entries: [user, call, result, thinking] })).toEqual([2]);
  });
});

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  'replays of the real conversations in ../shared/corpus billed by Anthropic rules',
  () => {
    it("read at least 85% of input from the cache on calls that do not compact with Baton's breakpoints, none without", async () => {
      const corpus = loadReplayCorpus();
      expect(corpus.length).toBe(12);
      let input = 0;
      let cached = 0;
      let compactions = 0;
      for (const { name, messages } of corpus) {
        // Claude Sonnet 4's catalog prices and Anthropic's rules (Sonnet 4.5's are the same: 1,024-token minimum).
        const result = await replay(fromOpenAIChat(messages), {
          model: 'claude-sonnet-4',
          contextWindow: 32_000,
        });
        expect(result.rules).toMatchObject({ kind: 'breakpoints', provider: 'anthropic' });
        const steady = result.steps.filter((s) => s.outcome === 'ok');
        compactions += result.steps.length - steady.length;
        const sent = steady.reduce((sum, s) => sum + s.billed.baton.inputTokens, 0);
        const read = steady.reduce((sum, s) => sum + s.billed.baton.cachedTokens, 0);
        input += sent;
        cached += read;
        const baton = result.policies.find((p) => p.key === 'baton')!;
        console.info(
          `[billing] ${name} at 32k: ${steady.length} of ${result.steps.length} calls without compaction read ${(100 * (read / sent)).toFixed(1)}% of ${sent} input tokens from the cache; $${baton.usd?.toFixed(4)} with Baton's breakpoints, $${baton.usdNoBreakpoints?.toFixed(4)} with none`,
        );
        // Long enough that the cold first call does not dominate: each on its own too.
        if (steady.length >= 20) expect(read / sent, name).toBeGreaterThanOrEqual(0.85);
        // A host that sets no breakpoints caches nothing on Anthropic, and pays more for it.
        expect(baton.billedCachedShareNoBreakpoints, name).toBe(0);
        expect(baton.usd!, name).toBeLessThan(baton.usdNoBreakpoints!);
      }
      console.info(
        `[billing] corpus at 32k: ${(100 * (cached / input)).toFixed(1)}% of ${input} input tokens read from the cache on calls that do not compact`,
      );
      expect(compactions, 'the corpus must compact at 32k for the claim to mean anything').toBeGreaterThan(0);
      expect(cached / input).toBeGreaterThanOrEqual(0.85);
    });
  },
);

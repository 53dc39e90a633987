import { existsSync, readFileSync } from 'node:fs';
import { createEntry, fromOpenAIChat, gptTokenizer, type OpenAIMessage, TokenCounter } from '@baton/core';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { corpusAvailable, SESSIONS_DIR } from '@baton/test-support/transcripts.ts';
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

/** A Claude Code session (a Claude model ran it) from ../shared/corpus, as OpenAI chat. */
const SESSION = 'coding-claude-code-gomod.openai.json';
const sessionAvailable = corpusAvailable && existsSync(`${SESSIONS_DIR}${SESSION}`);

describe.skipIf(skipUnless(sessionAvailable, `../shared/corpus/sessions/openai/${SESSION}`))(
  'replay billed by Anthropic rules, on a real Claude Code session',
  () => {
    it("reads at least 85% of input from the cache on calls that do not compact with Baton's breakpoints, none without", async () => {
      const messages = (
        JSON.parse(readFileSync(`${SESSIONS_DIR}${SESSION}`, 'utf8')) as { messages: OpenAIMessage[] }
      ).messages;
      // Claude Sonnet 4's catalog prices and Anthropic's rules (the same as Sonnet 4.5's: 1,024-token minimum).
      const result = await replay(fromOpenAIChat(messages), {
        model: 'claude-sonnet-4',
        contextWindow: 32_000,
      });
      expect(result.rules).toMatchObject({ kind: 'breakpoints', provider: 'anthropic' });
      const steady = result.steps.filter((s) => s.outcome === 'ok');
      const compacted = result.steps.filter((s) => s.outcome === 'compacted');
      expect(
        compacted.length,
        'the session must compact at 32k for the claim to mean anything',
      ).toBeGreaterThan(0);
      const input = steady.reduce((sum, s) => sum + s.billed.baton.inputTokens, 0);
      const cached = steady.reduce((sum, s) => sum + s.billed.baton.cachedTokens, 0);
      const share = cached / input;
      const baton = result.policies.find((p) => p.key === 'baton')!;
      console.info(
        `[billing] ${SESSION} at 32k: ${steady.length} calls without compaction read ${(100 * share).toFixed(1)}% of ${input} input tokens from the cache (Anthropic rules, Baton's breakpoints); all ${baton.calls} calls ${(100 * baton.billedCachedShare).toFixed(1)}%, $${baton.usd?.toFixed(4)} vs $${baton.usdNoBreakpoints?.toFixed(4)} with no breakpoints`,
      );
      expect(share).toBeGreaterThanOrEqual(0.85);
      // A host that sets no breakpoints caches nothing on Anthropic, and pays the input price throughout.
      expect(baton.billedCachedShareNoBreakpoints).toBe(0);
      expect(baton.usd!).toBeLessThan(0.5 * baton.usdNoBreakpoints!);
    });
  },
);

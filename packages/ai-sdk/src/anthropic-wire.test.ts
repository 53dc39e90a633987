import { createAnthropic } from '@ai-sdk/anthropic';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import { anthropicWire } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { runWireLoop } from './wire-loop.test-support.ts';

// Two conversations that outgrow these windows at a few seconds a run: SWE-agent on pydicom
// (12 tool steps) and a Claude Code session on a Go module (5 user turns, 29 tool steps).
const CONVERSATIONS = ['coding-swe-agent-pydicom', 'coding-claude-code-gomod'];

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  '@ai-sdk/anthropic through its wire format: corpus conversations as agent loops',
  () => {
    const transcripts = loadReplayCorpus().filter((t) => CONVERSATIONS.includes(t.name));
    for (const transcript of transcripts)
      for (const contextWindow of [16_000, 32_000])
        for (const stream of [false, true])
          it(`${transcript.name} at ${contextWindow / 1000}k, ${stream ? 'streamText' : 'generateText'}`, async () => {
            const result = await runWireLoop({
              transcript,
              wire: anthropicWire,
              model: (fetch) => createAnthropic({ apiKey: 'test-key', fetch })('claude-sonnet-4-5'),
              format: 'anthropic',
              contextWindow,
              maxOutputTokens: 2048,
              stream,
            });
            expect(result.failedTurns).toEqual([]);
            expect(result.violations).toEqual([]);
            expect(result.overWindow).toBe(0);
            expect(result.scripted.answered).toBe(result.scripted.total);
            // The runs exercise the ladder: both conversations outgrow a 16k window, gomod a 32k one.
            if (contextWindow === 16_000 || transcript.name === 'coding-claude-code-gomod')
              expect(result.compactions).toBeGreaterThan(0);
          });
  },
);

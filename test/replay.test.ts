import { createBaton, fromOpenAIChat } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { modelCallPoints } from './support/generate.ts';
import { invariantViolations } from './support/invariants.ts';
import { skipUnless } from './support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadCorpus } from './support/transcripts.ts';

const WINDOWS = [16_000, 32_000, 128_000];

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  'replay of the real transcripts in ../shared/corpus as agent loops',
  () => {
    for (const transcript of loadCorpus()) {
      for (const contextWindow of WINDOWS) {
        it(`${transcript.name} at a ${contextWindow / 1000}k window: every invariant at every step`, async () => {
          const history = fromOpenAIChat(transcript.messages);
          const baton = createBaton({ contextWindow });
          const session = baton.session(transcript.name);
          const outcomes = { ok: 0, compacted: 0, unfit: 0 };
          const opening = history.find((e) => e.role === 'user');
          const openingAt = opening ? history.indexOf(opening) : -1;
          for (const point of modelCallPoints(history)) {
            const prefix = history.slice(0, point);
            const prepared = await session.prepare({ entries: prefix });
            outcomes[prepared.outcome]++;
            // From 32k up the opening request leaves a working margin in every transcript (pylint's,
            // 7.8k tokens, is the largest): it is never cut to a preview, however long the run.
            if (contextWindow >= 32_000 && opening && point > openingAt)
              expect(
                prepared.entries.some((e) => JSON.stringify(e.parts) === JSON.stringify(opening.parts)),
                `step ${point}: the opening request verbatim`,
              ).toBe(true);
            const violations = await invariantViolations({
              history: prefix,
              prepared,
              session,
              budget: baton.options.inputBudget,
            });
            expect(violations, `step ${point} (${prepared.outcome})`).toEqual([]);
          }
          // The replay must exercise the engine: long transcripts do compact at small windows.
          const total = history.reduce((sum, e) => sum + JSON.stringify(e.parts).length, 0);
          if (total / 4 > baton.options.inputBudget)
            expect(outcomes.compacted + outcomes.unfit).toBeGreaterThan(0);
        });
      }
    }
  },
);

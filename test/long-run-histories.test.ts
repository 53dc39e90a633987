import { fromOpenAIChat, type OpenAIMessage } from '@baton/core';
import { pairingViolation } from '@baton/core/internals';
import { describe, expect, it } from 'vitest';
import { backToBackRun, revisitingRun } from './support/bench-histories.ts';
import { skipUnless } from './support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadCorpus } from './support/transcripts.ts';

/** Every tool-call id the assistant messages open, in order. */
const callIds = (messages: readonly OpenAIMessage[]) =>
  messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  'long runs built from the corpus for the bench',
  () => {
    const corpus = loadCorpus();
    const perRound = corpus.reduce((sum, t) => sum + t.messages.filter((m) => m.role !== 'system').length, 0);

    for (const [name, build] of [
      ['back to back', backToBackRun],
      ['revisiting its start', revisitingRun],
    ] as const)
      for (const n of [2_000, 4_000])
        it(`${name}, ${n} messages: the size asked, one system prompt, unique ids, every call answered`, () => {
          const { messages } = build(corpus, n);
          // Longer only by the results that close the last call.
          expect(messages.length).toBeGreaterThanOrEqual(n);
          expect(messages.length).toBeLessThan(n + 20);
          expect(messages.filter((m) => m.role === 'system')).toHaveLength(1);
          const ids = callIds(messages);
          expect(ids.length).toBeGreaterThan(n / 10);
          expect(new Set(ids).size).toBe(ids.length);
          expect(
            pairingViolation(fromOpenAIChat(messages).filter((e) => e.role !== 'system')),
          ).toBeUndefined();
        });

    it('back to back repeats the transcripts verbatim, round after round', () => {
      const { messages } = backToBackRun(corpus, 2_000);
      expect(messages.length).toBeGreaterThan(2 * perRound);
      const firstUser = messages.find((m) => m.role === 'user');
      expect(messages.filter((m) => m.role === 'user' && m.content === firstUser?.content)).toHaveLength(3);
    });

    it('revisiting re-reads first-round results at the start of every later round', () => {
      const { messages } = revisitingRun(corpus, 4_000, 3);
      const revisited = messages.filter((m) => m.role === 'tool' && /_r\d+v\d$/.test(String(m.tool_call_id)));
      const rounds = new Set(revisited.map((m) => String(m.tool_call_id).match(/_r(\d+)v\d$/)?.[1]));
      expect(rounds.size).toBeGreaterThanOrEqual(3);
      for (const copy of revisited) {
        const original = messages.find(
          (m) => m.tool_call_id === String(copy.tool_call_id).replace(/_r\d+v\d$/, ''),
        );
        expect(original?.content).toBe(copy.content);
        expect(String(original?.tool_call_id)).toMatch(/_r0$/);
      }
    });
  },
);

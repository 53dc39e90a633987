import { createEntry, type Entry, fromOpenAIChat } from '@baton/core';
import { entryText } from '@baton/core/internals';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import { describe, expect, it } from 'vitest';
import { modelCalls } from './replay.ts';
import { promptHolds, promptText, referenceRetention } from './retention.ts';

const call = (seq: number, id: string, input: unknown): Entry =>
  createEntry(seq, 'assistant', [{ type: 'tool-call', id, name: 'run', input }]);
const result = (seq: number, id: string, output: string): Entry =>
  createEntry(seq, 'tool', [{ type: 'tool-result', callId: id, name: 'run', output }]);

const history: Entry[] = [
  createEntry(0, 'system', 'You fix bugs. Use make_check to verify.'),
  createEntry(1, 'user', 'The build fails in pkg/server/handler.go'),
  call(2, 'c1', { cmd: 'cat pkg/server/handler.go' }),
  result(3, 'c1', 'func handleLogin() { validateToken(tok) } // see auth/token.go'),
  call(4, 'c2', { cmd: 'grep -n validateToken auth/token.go' }),
  result(5, 'c2', 'auth/token.go:42: func validateToken() error { return ErrExpired }'),
  createEntry(6, 'assistant', 'validateToken returns ErrExpired at auth/token.go line 42; make_check next.'),
];

describe('referenceRetention', () => {
  it('counts what the agent used that a tool result or the user showed first, not its own words or the system prompt', () => {
    const retention = referenceRetention(history);
    expect(retention.needed(2).map((r) => r.identifier)).toEqual(['pkg/server/handler.go']);
    // make_check came from the system prompt; "grep -n ..." is the agent's own command text.
    expect(
      retention
        .needed(6)
        .map((r) => `${r.identifier}@${r.firstAt}`)
        .sort(),
    ).toEqual(['ErrExpired@5', 'auth/token.go@3', 'validateToken@3']);
  });

  it('scores a prompt by what it contains; an over-budget prompt retains nothing; recall counts apart', () => {
    const full = referenceRetention(history);
    full.record(6, promptText({ entries: history.slice(0, 6) }));
    expect(full.totals).toMatchObject({ needed: 3, inPrompt: 3, recallable: 3 });

    const lastOnly = referenceRetention(history);
    lastOnly.record(6, promptText({ entries: history.slice(5, 6) }), { recallable: () => true });
    // auth/token.go and validateToken are in the last result too; nothing of entry 3 is needed beyond them.
    expect(lastOnly.totals).toMatchObject({ needed: 3, inPrompt: 3, recallable: 3 });

    const over = referenceRetention(history);
    over.record(6, promptText({ entries: history.slice(0, 6) }), { overBudget: true });
    expect(over.totals).toMatchObject({ needed: 3, inPrompt: 0, recallable: 0 });
    expect(over.totals.byDistance['up to 10'].needed).toBe(3);
  });

  it('scores recall once it is known, each reference once, in its distance too', () => {
    // A prompt holding neither result; what was archived is known only at the end.
    const lost = referenceRetention(history);
    lost.record(6, promptText({ entries: history.slice(0, 3) }));
    expect(lost.totals).toMatchObject({ needed: 3, inPrompt: 0, recallable: 0 });
    const archive = entryText(history[5]!);
    lost.scoreRecall((identifier) => identifier !== 'ErrExpired' && archive.includes(identifier));
    expect(lost.totals).toMatchObject({ needed: 3, inPrompt: 0, recallable: 2 });
    lost.scoreRecall((identifier) => archive.includes(identifier));
    lost.scoreRecall((identifier) => archive.includes(identifier));
    expect(lost.totals).toMatchObject({ needed: 3, inPrompt: 0, recallable: 3 });
    expect(lost.totals.byDistance['up to 10']).toEqual({ needed: 3, inPrompt: 0, recallable: 3 });

    // A call over the budget is refused: no recall happens in it, whatever was archived.
    const refused = referenceRetention(history);
    refused.record(6, promptText({ entries: history.slice(0, 6) }), { overBudget: true });
    refused.scoreRecall(() => true);
    expect(refused.totals).toMatchObject({ needed: 3, inPrompt: 0, recallable: 0 });
  });

  it.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
    'on the real corpus: no compaction retains everything, the last message alone very little',
    () => {
      let full = 0;
      let last = 0;
      let needed = 0;
      for (const transcript of loadReplayCorpus()) {
        const entries = fromOpenAIChat(transcript.messages);
        const whole = referenceRetention(entries);
        const newest = referenceRetention(entries);
        for (const at of modelCalls(entries)) {
          whole.record(at, promptText({ entries: entries.slice(0, at) }));
          newest.record(at, promptText({ entries: entries.slice(at - 1, at) }));
        }
        full += whole.totals.inPrompt;
        last += newest.totals.inPrompt;
        needed += whole.totals.needed;
      }
      expect(needed).toBeGreaterThan(1_000);
      expect(full).toBe(needed);
      console.log(
        `[retention] corpus: ${needed} needed references; the last message alone holds ${((100 * last) / needed).toFixed(1)}%`,
      );
      expect(last / needed).toBeLessThan(0.6);
    },
  );
});

describe('promptHolds', () => {
  it('finds what the prompt text holds, message by message, and nothing else', () => {
    const prompt = { system: 'use make_check', entries: history.slice(2, 5), trailer: 'notice TOK-123' };
    const text = promptText(prompt);
    const holds = promptHolds(prompt);
    for (const identifier of [
      'make_check',
      'handleLogin',
      'auth/token.go',
      'TOK-123',
      'ErrExpired',
      'validateToken',
    ])
      expect(holds(identifier), identifier).toBe(text.includes(identifier));
    expect(holds('ErrExpired')).toBe(false);
  });
});

import { createBaton, type Entry } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { longChatTurn, promptText, tenthsRepresented } from './support/long-chat.ts';

/**
 * Issue: at request 26 of a chat the default summary read "Earlier: " fourteen times and kept
 * only turns 1-2 and 24-25. A summary that extends the previous one as one document must keep
 * every stretch of the conversation in view, compressing old stretches instead of dropping them.
 */
describe('a 400-turn chat at an 8k window', () => {
  it('after 20+ compactions every tenth of the conversation and about a quarter of the decisions are in the prompt', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('long-chat');
    const system = 'You are the project assistant of a small operations team.';
    const history: Entry[] = [];
    const decisions: { id: string; value: string }[] = [];
    let compactions = 0;
    const checks: { turn: number; tenths: boolean[]; decisions: number; of: number }[] = [];
    let seq = 0;
    for (let turn = 1; turn <= 400; turn++) {
      const { entries, decision } = longChatTurn(turn, seq);
      seq += entries.length;
      if (decision) decisions.push(decision);
      // The model is called with the new request (and again after a tool result); the reply follows.
      history.push(...entries.slice(0, -1));
      const prepared = await session.prepare({ entries: history, system });
      expect(prepared.outcome).not.toBe('unfit');
      expect(prepared.tokens.after).toBeLessThanOrEqual(prepared.tokens.budget);
      if (prepared.events.some((e) => e.type === 'stage-completed' && e.stage === 'summarize')) compactions++;
      history.push(entries.at(-1)!);
      if (turn % 50 === 0) {
        const text = promptText(prepared.system, prepared.entries);
        const kept = decisions.filter((d) => text.includes(d.id) && text.includes(d.value)).length;
        checks.push({ turn, tenths: tenthsRepresented(text, turn), decisions: kept, of: decisions.length });
      }
    }
    // Many summaries over one document (23 measured 2026-12-02 with compactions spaced by the
    // steady-state pass and targetAt 0.3; 27 before, 30+ before the names line doubled).
    expect(compactions).toBeGreaterThanOrEqual(20);
    for (const check of checks) {
      // Measured 2026-11-30: every tenth at every check; 27 of 100 decisions at turn 400 (26 on
      // 2026-12-02 with the longer names line, 24 with targetAt 0.3: each compaction summarizes
      // deeper, the price of compacting a third as often on the long runs).
      expect(check.tenths, `turn ${check.turn}`).toEqual(Array(10).fill(true));
      expect(check.decisions / check.of, `turn ${check.turn}`).toBeGreaterThanOrEqual(0.24);
    }
  });
});

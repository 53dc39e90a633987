import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { smoothed } from './calibration.ts';

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

function chat(turns: number, seed: number): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', `OPENING ${seed}`)];
  for (let t = 0; t < turns; t++) {
    entries.push(createEntry(entries.length, 'assistant', words(120, t + seed)));
    entries.push(createEntry(entries.length, 'user', words(30, t + seed + 1000)));
  }
  return entries;
}

describe('smoothed', () => {
  it('takes the first report as it is, then gives the newest half the weight, clamped', () => {
    expect(smoothed(undefined, 1000, 1200)).toEqual({ ratio: 1.2, observations: 1 });
    expect(smoothed({ ratio: 1.2, observations: 1 }, 1000, 1400)?.ratio).toBeCloseTo(1.3);
    // A seed (no observation of the session's own yet) is replaced by the first report.
    expect(smoothed({ ratio: 0.6, observations: 0 }, 1000, 1400)).toEqual({ ratio: 1.4, observations: 1 });
    expect(smoothed({ ratio: 1.2, observations: 1 }, 1000, Number.NaN)).toBeUndefined();
    expect(smoothed(undefined, 0, 1000)).toBeUndefined();
    expect(smoothed(undefined, 1000, 100_000)?.ratio).toBe(4);
  });
});

describe('calibration per session', () => {
  it("two chats of one createBaton calibrate independently: one chat's reports never move the other's count", async () => {
    const baton = createBaton({ contextWindow: 100_000 });
    const tools = baton.session('tool-heavy');
    const document = baton.session('document');
    const historyA = chat(10, 1);
    const historyB = chat(10, 2);
    // The provider counts chat A at 1.5x Baton's tokenizer, chat B at 0.8x.
    const rawA = (await tools.prepare({ entries: historyA })).tokens.before;
    const rawB = (await document.prepare({ entries: historyB })).tokens.before;
    tools.observeUsage({ inputTokens: Math.round(rawA * 1.5) });
    document.observeUsage({ inputTokens: Math.round(rawB * 0.8) });
    for (let round = 0; round < 4; round++) {
      const a = await tools.prepare({ entries: historyA });
      tools.observeUsage({ inputTokens: Math.round(rawA * 1.5) });
      // Interleaved: A's report came last, B is counted as B.
      const b = await document.prepare({ entries: historyB });
      document.observeUsage({ inputTokens: Math.round(rawB * 0.8) });
      expect(a.tokens.before / rawA).toBeCloseTo(1.5, 2);
      expect(b.tokens.before / rawB, `round ${round}`).toBeCloseTo(0.8, 2);
    }
  });

  it('seeds a new session from what the process learnt last, then never follows the seed', async () => {
    const baton = createBaton({ contextWindow: 100_000 });
    const history = chat(10, 3);
    const teacher = baton.session('teacher');
    const raw = (await teacher.prepare({ entries: history })).tokens.before;
    teacher.observeUsage({ inputTokens: Math.round(raw * 1.4) });
    const fresh = baton.session('fresh');
    expect((await fresh.prepare({ entries: history })).tokens.before / raw).toBeCloseTo(1.4, 2);
    // The teacher learns something else; the fresh session keeps the ratio it started from.
    await teacher.prepare({ entries: history });
    teacher.observeUsage({ inputTokens: Math.round(raw * 0.7) });
    expect((await fresh.prepare({ entries: history })).tokens.before / raw).toBeCloseTo(1.4, 2);
    // And a session created now starts from the newest: 0.7 smoothed with 1.4.
    const later = baton.session('later');
    expect((await later.prepare({ entries: history })).tokens.before / raw).toBeCloseTo(1.05, 2);
  });

  it('keeps the last learnt ratio across a restart as the seed of new sessions', async () => {
    const store = memoryStore();
    const history = chat(10, 4);
    const first = createBaton({ contextWindow: 100_000, store }).session('before-restart');
    const raw = (await first.prepare({ entries: history })).tokens.before;
    first.observeUsage({ inputTokens: Math.round(raw * 1.3) });
    await first.prepare({ entries: history }); // the seed is written with this call's state
    const restarted = createBaton({ contextWindow: 100_000, store });
    const prepared = await restarted.session('after-restart').prepare({ entries: history });
    expect(prepared.tokens.before / raw).toBeCloseTo(1.3, 2);
    // Another tokenizer's ratio does not apply: a Baton counting with cl100k starts from 1.
    const other = createBaton({ contextWindow: 100_000, store, tokenizer: 'cl100k_base' });
    const otherRaw = (await other.session('cl100k').prepare({ entries: history })).tokens.before;
    const exact = await createBaton({ contextWindow: 100_000, tokenizer: 'cl100k_base' })
      .session('x')
      .prepare({ entries: history });
    expect(otherRaw).toBe(exact.tokens.before);
  });

  it('keeps the per-model seeds across a restart too', async () => {
    const store = memoryStore();
    const history = chat(10, 6);
    const raw = (await createBaton({ contextWindow: 100_000 }).session('exact').prepare({ entries: history }))
      .tokens.before;
    const before = createBaton({ contextWindow: 100_000, store });
    for (const [id, modelId, ratio] of [
      ['x-user', 'model-x', 1.3],
      ['y-user', 'model-y', 0.9],
    ] as const) {
      const session = before.session(id);
      await session.prepare({ entries: history, modelId });
      session.observeUsage({ inputTokens: Math.round(raw * ratio) });
      await session.prepare({ entries: history, modelId }); // writes the seed
    }
    const after = createBaton({ contextWindow: 100_000, store });
    const ratioOf = async (id: string, modelId: string) =>
      (await after.session(id).prepare({ entries: history, modelId })).tokens.before / raw;
    expect(await ratioOf('new-x', 'model-x')).toBeCloseTo(1.3, 2);
    expect(await ratioOf('new-y', 'model-y')).toBeCloseTo(0.9, 2);
    expect(await ratioOf('new-z', 'model-z')).toBeCloseTo(0.9, 2); // the last one seen
  });

  it('keeps a ratio per model: a model it used before keeps its own, a new one is seeded from that model', async () => {
    const history = chat(10, 5);
    const raw = (await createBaton({ contextWindow: 100_000 }).session('exact').prepare({ entries: history }))
      .tokens.before;
    const baton = createBaton({ contextWindow: 100_000 });
    const taught = async (id: string, modelId: string, ratio: number) => {
      const session = baton.session(id);
      await session.prepare({ entries: history, modelId });
      session.observeUsage({ inputTokens: Math.round(raw * ratio) });
      return session;
    };
    const session = await taught('switcher', 'model-a', 1.5);
    await taught('b-user', 'model-b', 0.8);
    await taught('c-user', 'model-c', 1.2); // the last ratio the process saw
    // model-b is new to this session: it starts from what the process learnt of model-b.
    expect((await session.prepare({ entries: history, modelId: 'model-b' })).tokens.before / raw).toBeCloseTo(
      0.8,
      2,
    );
    session.observeUsage({ inputTokens: Math.round(raw * 0.9) });
    // Back on model-a: its own ratio, untouched by what it learnt of model-b.
    expect((await session.prepare({ entries: history, modelId: 'model-a' })).tokens.before / raw).toBeCloseTo(
      1.5,
      2,
    );
    expect((await session.prepare({ entries: history, modelId: 'model-b' })).tokens.before / raw).toBeCloseTo(
      0.9,
      2,
    );
    await expect(session.prepare({ entries: history, modelId: '' })).rejects.toThrow(/modelId/);
  });
});

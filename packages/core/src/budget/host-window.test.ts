import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { buildGroups } from '../transcript/groups.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

/** Turn `t` of a chat: the user's message and a long answer, at seqs that stay with them. */
const turn = (t: number): Entry[] => [
  createEntry(t * 10, 'user', `question ${t}: ${words(20, t)}`, `u${t}`),
  createEntry(t * 10 + 1, 'assistant', `answer ${t}: ${words(400, t + 500)}`, `a${t}`),
];

/** What a host window of the last `size` turns sends at turn `t` (Mastra's lastMessages). */
const windowAt = (t: number, size: number) =>
  Array.from({ length: Math.min(size, t + 1) }, (_, i) => turn(t - Math.min(size, t + 1) + 1 + i)).flat();

const summaries = (entries: readonly Entry[]) =>
  entries.filter((entry) => entry.meta?.synthetic === 'summary').length;

describe('a host window (PrepareInput.window)', () => {
  it('keeps the opening request while the window holds it; later windows get one summary, not one per slide', async () => {
    const store = memoryStore();
    const session = createBaton({ contextWindow: 3_000, store }).session('window');
    let most = 0;
    for (let t = 0; t < 20; t++) {
      const entries = windowAt(t, 6);
      const prepared = await session.prepare({ entries, window: true });
      most = Math.max(most, summaries(prepared.entries));
      // The opening request, while the window holds it, is sent verbatim.
      if (t < 6) expect(prepared.entries).toContain(entries[0]);
    }
    // Protecting each window's first user message split the span the summary may take: 2
    // summaries in one projection without the window flag (measured), one with it.
    expect(most).toBe(1);
    // A restarted process knows the opening request from the stored state.
    const restarted = createBaton({ contextWindow: 3_000, store }).session('window');
    await restarted.prepare({ entries: windowAt(20, 6), window: true });
    expect(
      (await store.getDocument<{ openingSeq?: number }>('baton/state', 'window'))?.value.openingSeq,
    ).toBe(0);
  });

  it('marks only the first user message at the opening seq as the opening request', () => {
    const policy = { pinnedTools: new Set<string>() };
    const later = windowAt(9, 3);
    expect(buildGroups(later, policy).filter((g) => g.firstRequest)).toHaveLength(1);
    expect(buildGroups(later, { ...policy, openingSeq: 0 }).filter((g) => g.firstRequest)).toEqual([]);
    expect(
      buildGroups(windowAt(1, 3), { ...policy, openingSeq: 0 })
        .filter((g) => g.firstRequest)
        .map((g) => g.entries[0]?.key),
    ).toEqual(['u0']);
  });
});

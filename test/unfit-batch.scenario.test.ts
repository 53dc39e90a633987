import { createBaton, createEntry, type Entry, type Part } from '@baton/core';
import { describe, expect, it } from 'vitest';

/**
 * Incident: "CONTEXT_UNFIT ... 129419 > 126976 tokens" — a batch of large fresh tool results
 * that no stage may touch (the model has not seen them) and the turn died with an unhandled
 * error. Baton must degrade them to previews and say so, and when even that cannot fit,
 * end with a recoverable `unfit` outcome and a checkpoint, never an exception.
 */
const hexish = (bytes: number, seed: number) => {
  let state = seed;
  let out = '';
  while (out.length < bytes) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += `${state.toString(16)}:${(state >> 3) % 997} `;
  }
  return out.slice(0, bytes);
};

function batch(count: number, bytes: number): Entry[] {
  const entries: Entry[] = [
    createEntry(0, 'system', 'You are an analyst agent.'),
    createEntry(1, 'user', 'Pull the four shard dumps and find the corrupted record.'),
  ];
  const calls: Part[] = Array.from({ length: count }, (_, i) => ({
    type: 'tool-call',
    id: `dump_${i}`,
    name: 'fetch_shard',
    input: { shard: i },
  }));
  entries.push(createEntry(2, 'assistant', calls));
  for (let i = 0; i < count; i++) {
    entries.push(
      createEntry(3 + i, 'tool', [
        { type: 'tool-result', callId: `dump_${i}`, name: 'fetch_shard', output: hexish(bytes, i + 1) },
      ]),
    );
  }
  return entries;
}

describe('incident: a batch of fresh tool results larger than the window', () => {
  it('degrades the unseen results to head/tail previews, says so, and the full text stays recallable', async () => {
    const baton = createBaton({ model: 'gpt-4o' });
    const session = baton.session('shards');
    const history = batch(4, 150_000);
    const prepared = await session.prepare({ entries: history });

    expect(prepared.tokens.before).toBeGreaterThan(baton.options.inputBudget);
    expect(prepared.outcome).toBe('compacted');
    expect(prepared.tokens.after).toBeLessThanOrEqual(baton.options.inputBudget);
    const notice = prepared.notices.find((n) => n.type === 'degrade');
    expect(notice?.text).toMatch(/too large for the context window/);
    expect(prepared.trailer).toContain(notice!.text);
    expect(prepared.system).not.toContain(notice!.text);
    // Pairing holds: every call still has its (previewed) result.
    expect(prepared.entries.filter((e) => e.role === 'tool')).toHaveLength(4);

    // Page through one full result with the recall tool: the pages concatenate to the original.
    const recall = session.tools.find((t) => t.name === 'recall')!;
    const original =
      history[3]!.parts[0]!.type === 'tool-result' ? (history[3]!.parts[0]!.output as string) : '';
    let text = '';
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = (await recall.execute({ ref: history[3]!.key, offset, limit: 40_000 })) as {
        content: string;
        nextOffset?: number;
      };
      text += page.content;
      offset = page.nextOffset;
    }
    expect(text).toBe(original);
  });

  it('ends with a recoverable unfit outcome and a checkpoint when even previews cannot fit, and tells the next turn', async () => {
    // A request the ladder may never touch, larger than the whole budget.
    const baton = createBaton({ contextWindow: 8_000, pinnedTools: ['fetch_shard'] });
    const session = baton.session('too-big');
    await session.notes.write('plan', 'find the corrupted record in shard 2');
    const history = batch(4, 12_000);
    const prepared = await session.prepare({ entries: history });

    expect(prepared.outcome).toBe('unfit');
    if (prepared.outcome !== 'unfit') return;
    expect(prepared.reason).toMatch(/pinned tool fetch_shard [\d,]+ tokens/);
    expect(prepared.checkpointRef).toBeDefined();
    const checkpoint = await session.readCheckpoint(prepared.checkpointRef!);
    expect(checkpoint?.notes).toEqual([{ name: 'plan', text: 'find the corrupted record in shard 2' }]);
    expect(checkpoint?.reason).toBe(prepared.reason);

    // The next turn of the same session starts with a notice explaining what happened.
    const next = [...history, createEntry(history.length, 'user', 'What happened?')];
    const afterwards = await createBaton({ contextWindow: 8_000, store: baton.options.store })
      .session('too-big')
      .prepare({
        entries: next.filter((e) => e.role !== 'tool' && e.role !== 'assistant'),
      });
    const unfit = afterwards.notices.find((n) => n.type === 'unfit');
    expect(unfit?.text).toContain(prepared.checkpointRef!);
    expect(afterwards.trailer).toContain('could not fit the context window');
    // Once, then gone.
    const again = await createBaton({ contextWindow: 8_000, store: baton.options.store })
      .session('too-big')
      .prepare({ entries: next.slice(0, 2) });
    expect(again.notices.some((n) => n.type === 'unfit')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { renderNotices } from '../agent/notices.ts';
import type { BatonEvent } from '../contracts/events.ts';
import type { SummarizerInput } from '../contracts/summarizer.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { TokenCounter } from '../tokens/token-counter.ts';
import { gptTokenizer } from '../tokens/tokenizer.ts';
import { createEntry, type Entry, entryText } from '../transcript/transcript.ts';
import { createBaton } from './baton.ts';

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

/** A chat of `turns` user/assistant pairs. */
function chat(turns: number, size = 120): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING request')];
  for (let t = 0; t < turns; t++) {
    entries.push(createEntry(entries.length, 'assistant', words(size, t)));
    entries.push(createEntry(entries.length, 'user', words(size / 4, t + 1000)));
  }
  return entries;
}

describe('Baton.session', () => {
  it('keeps at most maxSessions session objects; a dropped one is rebuilt from the store with its ledger and notes', async () => {
    const store = memoryStore();
    const baton = createBaton({ contextWindow: 6_000, store, maxSessions: 2 });
    const first = baton.session('a');
    expect(baton.session('a')).toBe(first);
    await first.notes.write('plan', 'NOTE OF A');
    const compacted = await first.prepare({ entries: chat(60) });
    expect(compacted.outcome).toBe('compacted');
    baton.session('b');
    baton.session('c'); // 'a' is now the least recently used of three: dropped
    const rebuilt = baton.session('a');
    expect(rebuilt).not.toBe(first);
    const again = await rebuilt.prepare({ entries: chat(60) });
    // The stored ledger is re-applied: the same projection, no second compaction.
    expect(again.outcome).toBe('ok');
    expect(again.entries.map((e) => e.key)).toEqual(compacted.entries.map((e) => e.key));
    expect(again.block).toContain('NOTE OF A');
    // Use refreshes recency: 'c' and 'a' were used last, so 'b' goes next, not 'a'.
    baton.session('d');
    expect(baton.session('a')).toBe(rebuilt);
    expect(() => createBaton({ contextWindow: 6_000, maxSessions: 0 })).toThrow(/maxSessions/);
  });
});

describe('Session.prepare', () => {
  it('keeps its token calibration across a restart: the same history measures the same after it', async () => {
    const store = memoryStore();
    const history = chat(10);
    const before = createBaton({ contextWindow: 32_000, store }).session('calibrated');
    const uncalibrated = await before.prepare({ entries: history });
    before.observeUsage({ inputTokens: Math.round(uncalibrated.tokens.before * 1.3) });
    const calibrated = await before.prepare({ entries: history }); // also persists the state
    expect(calibrated.tokens.before).toBeGreaterThan(uncalibrated.tokens.before * 1.2);
    // A new process on the same store.
    const after = createBaton({ contextWindow: 32_000, store }).session('calibrated');
    expect((await after.prepare({ entries: history })).tokens.before).toBe(calibrated.tokens.before);
  });

  it('never lets one big message lock a chat: a first message larger than the budget is previewed, the next ten turns fit, the document is recallable', async () => {
    const session = createBaton({ contextWindow: 8_000 }).session('big-opening');
    const document = `DOCUMENT START ${words(12_000, 5)} MIDDLE-MARK-4411 ${words(6_000, 6)} DOCUMENT END`;
    const history: Entry[] = [createEntry(0, 'user', document)];
    const budget = 8_000 - 1_600;
    for (let turn = 0; turn <= 10; turn++) {
      const prepared = await session.prepare({ entries: history });
      expect(prepared.outcome, `turn ${turn}`).not.toBe('unfit');
      expect(prepared.tokens.after).toBeLessThanOrEqual(budget);
      const opening = prepared.entries.find((e) => e.seq === 0)!;
      expect(entryText(opening)).toMatch(/^\[baton\] This message was too large for the context window/);
      expect(entryText(opening)).toContain('DOCUMENT START');
      // The preview uses the room there is (a quarter of the budget), not a token sliver.
      const shown = new TokenCounter(gptTokenizer(), 0).count(opening);
      expect(shown).toBeGreaterThan(budget * 0.2);
      expect(shown).toBeLessThanOrEqual(budget * 0.25 + 100);
      if (turn === 0) expect(renderNotices(prepared.notices)).toMatch(/1 message was too large/);
      history.push(createEntry(history.length, 'assistant', `answer ${turn}`));
      history.push(createEntry(history.length, 'user', `question ${turn + 1}`));
    }
    // The full text is archived, byte for byte, and a passage deep inside is one recall away.
    expect(entryText((await session.archive.get(history[0]!.key))!.entry)).toBe(document);
    const recall = session.tools.find((t) => t.name === 'recall')!;
    const found = (await recall.execute({ query: 'MIDDLE-MARK-4411' })) as { content: string };
    expect(found.content).toContain('MIDDLE-MARK-4411');
  });

  it('says once, with an event, that probes cannot run when nothing can answer them', async () => {
    const events: BatonEvent[] = [];
    const session = createBaton({
      contextWindow: 16_000,
      selfCompact: { probeEvery: 1, minSteps: 0, minTokens: 0 },
      onEvent: (event) => events.push(event),
    }).session('no-judge');
    // A closed unit: the assistant answered without tool calls.
    for (let step = 0; step < 4; step++) await session.prepare({ entries: chat(3 + step) });
    const unavailable = events.filter((e) => e.type === 'probe-unavailable');
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]).toMatchObject({ reason: expect.stringMatching(/pass selfCompact\.judge/) });
    expect(events.some((e) => e.type === 'probe-decided')).toBe(false);
  });

  it('stamps archive records and checkpoints with the injected clock, and refuses a clock that is not a function', async () => {
    const store = memoryStore();
    const baton = createBaton({ contextWindow: 6_000, store, now: () => 1_234_567 });
    const compacted = await baton.session('clock').prepare({ entries: chat(60) });
    expect(compacted.outcome).toBe('compacted');
    const archived = await store.rangeArchive('clock', 0, 1_000);
    expect(archived.length).toBeGreaterThan(0);
    expect(new Set(archived.map((r) => r.archivedAt))).toEqual(new Set([1_234_567]));
    const unfit = await createBaton({ contextWindow: 1_000, store, now: () => 42 })
      .session('clock-unfit')
      .prepare({ entries: [createEntry(0, 'system', words(3_000, 2)), createEntry(1, 'user', 'go')] });
    if (unfit.outcome !== 'unfit') throw new Error(`expected unfit, got ${unfit.outcome}`);
    expect((await baton.session('clock-unfit').readCheckpoint(unfit.checkpointRef))?.createdAt).toBe(42);
    expect(() => createBaton({ contextWindow: 6_000, now: 5 as never })).toThrow(/now: expected a function/);
  });

  it("says whether the projection changed, and returns Baton's block apart from the host's system prompt", async () => {
    const session = createBaton({ contextWindow: 6_000 }).session('changed');
    const history = chat(60);
    const small = await session.prepare({ entries: history.slice(0, 5), system: 'HOST PROMPT' });
    expect(small).toMatchObject({
      outcome: 'ok',
      changed: false,
      block: '',
      trailer: '',
      system: 'HOST PROMPT',
    });
    // Written from outside the agent's notes tool (the host, another worker): the cached block
    // stays as it was, and the model reads the change after the conversation until a compaction.
    await session.notes.write('plan', 'NOTE TEXT');
    const noted = await session.prepare({ entries: history.slice(0, 5), system: 'HOST PROMPT' });
    expect(noted).toMatchObject({ changed: false, block: '', system: 'HOST PROMPT' });
    expect(noted.notices.map((n) => n.type)).toEqual(['notes']);
    expect(noted.trailer).toContain('NOTE TEXT');
    const compacted = await session.prepare({ entries: history, system: 'HOST PROMPT' });
    expect(compacted).toMatchObject({ outcome: 'compacted', changed: true });
    expect(compacted.block).toContain('NOTE TEXT');
    expect(compacted.system).toBe(`HOST PROMPT\n\n${compacted.block}`);
    expect(compacted.notices.map((n) => n.type)).not.toContain('notes');
    expect(compacted.trailer).toContain('Context was compacted before this step');
  });

  it("keeps the notes block between compactions: the agent's own write is in its history, not a new prefix", async () => {
    const session = createBaton({ contextWindow: 6_000 }).session('own-notes');
    const history = chat(60);
    const notesTool = session.tools.find((t) => t.name === 'notes')!;
    await notesTool.execute({ action: 'write', section: 'plan', text: 'FIRST' });
    const first = await session.prepare({ entries: history.slice(0, 5) });
    expect(first.block).toContain('FIRST');
    await notesTool.execute({ action: 'append', section: 'plan', text: 'SECOND' });
    const second = await session.prepare({ entries: history.slice(0, 6) });
    // Byte for byte the block of the call before, and no notice: the tool's result told the agent.
    expect(second.block).toBe(first.block);
    expect(second.trailer).toBe('');
    const compacted = await session.prepare({ entries: history });
    expect(compacted.outcome).toBe('compacted');
    expect(compacted.block).toContain('FIRST\nSECOND');
  });

  it('gives an unfit outcome its reason, checkpoint and the one message every adapter ends the step with', async () => {
    const session = createBaton({ contextWindow: 1_000 }).session('unfit-message');
    const prepared = await session.prepare({
      entries: [createEntry(0, 'user', 'go')],
      system: words(3_000, 1),
    });
    if (prepared.outcome !== 'unfit') throw new Error(`expected unfit, got ${prepared.outcome}`);
    expect(prepared.checkpointRef).toMatch(/checkpoint-1-[0-9a-f]{16}$/);
    expect(prepared.message).toBe(
      `[baton] This step was not sent to the model: the conversation no longer fits the model's context window (${prepared.reason}). ` +
        'Nothing was lost: the full history is kept. Send a shorter message or fewer attachments, or start a new conversation; ' +
        `the agent continues from its notes (checkpoint ${JSON.stringify(prepared.checkpointRef)}).`,
    );
  });

  it('keeps the projection prefix byte-stable between calls when nothing new is compacted', async () => {
    const session = createBaton({ contextWindow: 6_000 }).session('s');
    const history = chat(60);
    const first = await session.prepare({ entries: history.slice(0, 100) });
    expect(first.outcome).toBe('compacted');
    const second = await session.prepare({ entries: history.slice(0, 101) });
    expect(second.outcome).toBe('ok');
    expect(JSON.stringify(second.entries.slice(0, first.entries.length))).toBe(JSON.stringify(first.entries));
    // Untouched host entries come back as the same objects (adapters round-trip them by reference).
    expect(second.entries.at(-1)).toBe(history[100]);
  });

  it('persists the ledger with a version, so another process projects the same way', async () => {
    const store = memoryStore();
    const history = chat(60);
    const a = await createBaton({ contextWindow: 6_000, store })
      .session('shared')
      .prepare({ entries: history });
    const stored = await store.getDocument<{ decisions: unknown[] }>('baton/ledger', 'shared');
    expect(stored?.version).toBe(1);
    expect(stored?.value.decisions.length).toBeGreaterThan(0);
    const b = await createBaton({ contextWindow: 6_000, store })
      .session('shared')
      .prepare({ entries: history });
    expect(b.outcome).toBe('ok');
    expect(JSON.stringify(b.entries)).toBe(JSON.stringify(a.entries));
  });

  it("recovers from a ledger conflict (compare-and-set) without losing either writer's decisions", async () => {
    const store = memoryStore();
    const history = chat(60);
    const one = createBaton({ contextWindow: 6_000, store }).session('shared');
    const two = createBaton({ contextWindow: 6_000, store }).session('shared');
    // Both read version 0, both compact; the second to commit re-reads and applies on top.
    const results = await Promise.all([
      one.prepare({ entries: history.slice(0, 80) }),
      two.prepare({ entries: history }),
    ]);
    expect(results.flatMap((r) => r.events).filter((e) => e.type === 'ledger-conflict')).toHaveLength(1);
    const stored = await store.getDocument<{ decisions: unknown[] }>('baton/ledger', 'shared');
    expect(stored?.version).toBe(2);
  });

  it("honours a compact request made through another worker's tool at the next call, once", async () => {
    const store = memoryStore();
    const history = chat(12);
    const one = createBaton({ contextWindow: 100_000, store }).session('shared');
    const two = createBaton({ contextWindow: 100_000, store }).session('shared');
    await one.prepare({ entries: history });
    await two.prepare({ entries: history });
    const compact = one.tools.find((t) => t.name === 'compact')!;
    await compact.execute({ instruction: 'keep the decisions' });
    const next = await two.prepare({ entries: history }); // far below compactAt: only the request compacts
    expect(next.outcome).toBe('compacted');
    expect((await one.prepare({ entries: history })).outcome).toBe('ok'); // consumed, not run twice
  });

  it("applies another worker's committed decisions at the next call (the ledger is re-read every call)", async () => {
    const store = memoryStore();
    const history = chat(60);
    const one = createBaton({ contextWindow: 6_000, store }).session('shared');
    const two = createBaton({ contextWindow: 6_000, store }).session('shared');
    await two.prepare({ entries: history.slice(0, 4) }); // two has loaded the (empty) ledger
    const compacted = await one.prepare({ entries: history });
    expect(compacted.outcome).toBe('compacted');
    const next = await two.prepare({ entries: history });
    expect(next.outcome).toBe('ok'); // nothing left to do: one's decisions apply
    expect(next.entries.map((e) => e.key)).toEqual(compacted.entries.map((e) => e.key));
  });

  it('calibrates later estimates from provider-reported usage', async () => {
    const baton = createBaton({ contextWindow: 100_000 });
    const session = baton.session('s');
    const history = chat(10);
    const first = await session.prepare({ entries: history });
    session.observeUsage({ inputTokens: Math.round(first.tokens.after * 1.5) });
    const second = await session.prepare({ entries: history });
    expect(second.tokens.after / first.tokens.after).toBeCloseTo(1.5, 1);
  });

  it('counts the system prompt and tool schemas', async () => {
    const session = createBaton({ contextWindow: 100_000 }).session('s');
    const bare = await session.prepare({ entries: chat(1) });
    const withSystem = await session.prepare({ entries: chat(1), system: words(200, 1) });
    const withTools = await session.prepare({
      entries: chat(1),
      tools: [
        {
          name: 'grep',
          description: words(50, 2),
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        },
      ],
    });
    expect(withSystem.tokens.after - bare.tokens.after).toBeGreaterThan(200);
    expect(withTools.tokens.after - bare.tokens.after).toBeGreaterThan(50);
    expect(withSystem.system).toBe(words(200, 1));
  });

  it('requestCompaction compacts down to targetAt with the instruction handed to the summarizer', async () => {
    const inputs: SummarizerInput[] = [];
    const baton = createBaton({
      contextWindow: 20_000,
      summarizer: async (input) => {
        inputs.push(input);
        return 'kept: the plan';
      },
    });
    const session = baton.session('s');
    const history = chat(40);
    const before = await session.prepare({ entries: history });
    expect(before.outcome).toBe('ok');
    session.requestCompaction('keep the plan');
    const after = await session.prepare({ entries: history });
    expect(after.outcome).toBe('compacted');
    expect(after.tokens.after).toBeLessThanOrEqual(baton.options.targetAt * baton.options.inputBudget);
    expect(inputs.every((i) => i.instruction === 'keep the plan')).toBe(true);
    expect(inputs.length).toBeGreaterThan(0);
  });

  it('reports unfit instead of throwing when protected content alone exceeds the budget, naming the largest part first', async () => {
    const baton = createBaton({ contextWindow: 2_000 });
    const prepared = await baton.session('s').prepare({
      entries: [createEntry(0, 'system', words(3_000, 1)), createEntry(1, 'user', 'go')],
    });
    if (prepared.outcome !== 'unfit') throw new Error(`expected unfit, got ${prepared.outcome}`);
    expect(prepared.events.some((e) => e.type === 'budget-exceeded')).toBe(true);
    expect(prepared.reason).toMatch(
      /^system prompt, tools and notes [\d,]+ tokens \+ .*the current request [\d,]+ tokens exceed/,
    );
  });

  it("an unfit reason's parts add up to the prompt, tool definitions included", async () => {
    // Tool schemas alone over the budget: a reason of a few tokens each would not explain it.
    const tools = [{ name: 'search', description: words(1_500, 2), inputSchema: { type: 'object' } }];
    const prepared = await createBaton({ contextWindow: 1_000 })
      .session('s')
      .prepare({ entries: [createEntry(0, 'system', 'hi'), createEntry(1, 'user', 'hello')], tools });
    if (prepared.outcome !== 'unfit') throw new Error(`expected unfit, got ${prepared.outcome}`);
    const parts = [...prepared.reason.matchAll(/([\d,]+) tokens/g)].map((m) =>
      Number(m[1]!.replaceAll(',', '')),
    );
    expect(prepared.reason).toMatch(/^system prompt, tools and notes [\d,]+ tokens/);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(prepared.tokens.after);
    expect(parts[0]).toBeGreaterThan(prepared.tokens.budget);
  });

  it('rejects an empty session id', () => {
    expect(() => createBaton({ contextWindow: 1_000 }).session('')).toThrow(/session id/);
  });
});

import { describe, expect, it } from 'vitest';
import type { SummarizerInput } from '../contracts/summarizer.ts';
import { foldToolResults } from '../ladder/stages/index.ts';
import { createBaton } from '../session/baton.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { BatonToolError } from './agent-tools.ts';

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 61}`).join(' ');

function toolHistory(steps: number): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING')];
  for (let s = 0; s < steps; s++) {
    entries.push(
      createEntry(entries.length, 'assistant', [
        { type: 'tool-call', id: `c${s}`, name: 'read', input: { s } },
      ]),
    );
    entries.push(
      createEntry(entries.length, 'tool', [
        { type: 'tool-result', callId: `c${s}`, name: 'read', output: `result ${s}: ${words(300, s)}` },
      ]),
    );
  }
  entries.push(createEntry(entries.length, 'assistant', 'ok'));
  return entries;
}

const tool = (session: { tools: { name: string; execute(i: unknown): Promise<unknown> }[] }, name: string) =>
  session.tools.find((t) => t.name === name)!;

describe('agent tools', () => {
  it('recall by query lands on the match, however deep in a large record, and ranks records by the terms they hold', async () => {
    const store = memoryStore();
    const big = `${words(40_000, 1).slice(0, 150_000)} NEEDLE-7731 the rollback id ${words(4_000, 2)}`.slice(
      0,
      170_000,
    );
    const record = (seq: number, text: string) => ({
      ref: `r${seq}`,
      seq,
      entry: createEntry(seq, 'tool', [
        { type: 'tool-result', callId: `c${seq}`, name: 'read', output: text },
      ]),
      stage: 'fold-tool-results',
      archivedAt: 0,
    });
    await store.appendArchive('deep', [
      record(1, big),
      record(2, 'the deploy note mentions rollback only'),
      record(3, 'deploy of build 42, then a rollback of build 42'),
    ]);
    const recall = tool(createBaton({ contextWindow: 8_000, store }).session('deep'), 'recall');
    type Found = { content: string; matches: Array<{ ref: string; at: number[] }> };

    const needle = (await recall.execute({ query: 'needle-7731' })) as Found;
    expect(big.indexOf('NEEDLE-7731')).toBeGreaterThan(149_000);
    expect(needle.content).toContain('NEEDLE-7731 the rollback id');
    expect(needle.matches).toEqual([{ ref: 'r1', seq: 1, at: [big.indexOf('NEEDLE-7731')] }]);
    expect(needle.content.length).toBeLessThan(3_000);

    // No record holds the phrase: its words rank the record holding both first.
    const words2 = (await recall.execute({ query: 'rollback deploy build' })) as Found & {
      records: { ref: string }[];
    };
    expect(words2.records.map((r) => r.ref)).toEqual(['r3', 'r2', 'r1']);
    // Paging through whole records stays available with an offset.
    const paged = (await recall.execute({ query: 'needle-7731', offset: 0, limit: 100 })) as {
      content: string;
    };
    expect(paged.content).toMatch(/^=== seq 1/);
  });

  it('are notes, compact and recall, each with a description and a zod schema', () => {
    const session = createBaton({ contextWindow: 50_000 }).session('s');
    expect(session.tools.map((t) => t.name)).toEqual(['notes', 'compact', 'recall']);
    for (const t of session.tools) {
      expect(t.description.length).toBeGreaterThan(40);
      expect(t.inputSchema.safeParse({}).success || t.name === 'notes').toBe(true);
    }
  });

  it('notes: tool errors name the valid forms and the cap', async () => {
    const session = createBaton({ contextWindow: 50_000, notesCap: 80 }).session('s');
    const notes = tool(session, 'notes');
    await expect(notes.execute({ action: 'erase' })).rejects.toThrow(BatonToolError);
    await expect(notes.execute({ action: 'erase' })).rejects.toThrow(
      /notes takes \{ "action": "read" \| "write" \| "append"/,
    );
    await expect(notes.execute({ action: 'write', section: 'a' })).rejects.toThrow(
      /write needs "section" and "text"/,
    );
    await expect(notes.execute({ action: 'write', section: 'a', text: words(400, 1) })).rejects.toThrow(
      /\[baton\] \[notes\] notes are capped at 80 tokens/,
    );
    await expect(notes.execute({ action: 'write', section: 'plan', text: 'ship it' })).resolves.toMatchObject(
      { saved: 'plan', cap: 80 },
    );
    await expect(notes.execute({ action: 'read' })).resolves.toMatchObject({
      notes: expect.stringContaining('### plan\nship it'),
    });
  });

  it('compact: saves the checkpoint, and its instruction shapes the summary even when folding alone reaches the target', async () => {
    const inputs: SummarizerInput[] = [];
    const baton = createBaton({
      contextWindow: 30_000,
      summarizer: async (input) => {
        inputs.push(input);
        return `KEPT AS ASKED: ${input.instruction}`;
      },
    });
    const history = toolHistory(20);
    // Without an instruction, folding alone reaches the target: no summary is written.
    const plain = baton.session('plain');
    await plain.prepare({ entries: history });
    await tool(plain, 'compact').execute({});
    const folded = await plain.prepare({ entries: history });
    expect(folded.outcome).toBe('compacted');
    expect(inputs).toHaveLength(0);
    expect(folded.events.filter((e) => e.type === 'stage-completed').map((e) => e.stage)).toEqual([
      'fold-tool-results',
    ]);

    const session = baton.session('s');
    const before = await session.prepare({ entries: history });
    expect(before.outcome).toBe('ok');
    const answer = (await tool(session, 'compact').execute({
      instruction: 'keep file names',
      checkpoint: 'read 20 files; next: fix',
    })) as { message: string; tokens: number; target: number; span: { from: number; to: number } };
    // True numbers: the context as it is and the target this request aims at (half of it here).
    const target = Math.min(baton.options.targetAt * baton.options.inputBudget, before.tokens.after * 0.5);
    expect(answer).toMatchObject({ scheduled: true, tokens: before.tokens.after, target });
    expect(answer.message).toContain(
      `The context is about ${before.tokens.after.toLocaleString('en-US')} tokens now.`,
    );
    expect(answer.message).toContain(`above ${Math.round(target).toLocaleString('en-US')} tokens`);
    expect(answer.message).toMatch(
      /^Checkpoint saved to your notes .* messages seq 1-\d+ \(\d+ messages, about [\d,]+ tokens\) will be replaced by a summary that follows your instruction/,
    );
    expect(await session.notes.read('checkpoint')).toEqual({
      name: 'checkpoint',
      text: 'read 20 files; next: fix',
    });
    const after = await session.prepare({ entries: history });
    expect(after.outcome).toBe('compacted');
    expect(after.tokens.after).toBeLessThanOrEqual(target);
    expect(after.system).toContain('read 20 files; next: fix');
    // The summarizer ran, with the instruction, and its text replaces the span in the projection.
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.every((i) => i.instruction === 'keep file names')).toBe(true);
    const summary = after.entries.find((e) => e.meta?.synthetic === 'summary');
    expect(summary?.parts).toEqual([
      { type: 'text', text: expect.stringContaining('KEPT AS ASKED: keep file names') },
    ]);
    const eviction = after.notices.find((n) => n.type === 'eviction');
    expect(eviction?.text).toMatch(
      new RegExp(
        `Your compact instruction was followed: the summary of seq ${answer.span.from}-\\d+ is written to it\\.$`,
      ),
    );
    // Only once: the following call does not compact again.
    expect((await session.prepare({ entries: history })).outcome).toBe('ok');
  });

  it('compact: when no summary can be written, the checkpoint the agent wrote with its instruction replaces the span', async () => {
    const baton = createBaton({
      contextWindow: 30_000,
      summarizer: async () => {
        throw new Error('model down');
      },
    });
    const history = toolHistory(20);
    const session = baton.session('down');
    await session.prepare({ entries: history });
    const answer = (await tool(session, 'compact').execute({
      instruction: 'keep file names',
      checkpoint: 'FILES: r0..r19; next: fix r7',
    })) as { message: string };
    expect(answer.message).toContain('(by your checkpoint if no summary can be written)');
    const after = await session.prepare({ entries: history });
    expect(after.outcome).toBe('compacted');
    expect(after.events).toContainEqual(
      expect.objectContaining({ type: 'summarizer-failed', error: expect.stringContaining('model down') }),
    );
    const replaced = after.entries.find((e) => e.meta?.synthetic === 'summary');
    expect(replaced?.parts).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /No summary could be written \(.*model down.*\); the checkpoint the agent saved when it asked for this compaction stands for these messages:\nFILES: r0\.\.r19; next: fix r7/,
        ),
      },
    ]);
    const eviction = after.notices.find((n) => n.type === 'eviction');
    expect(eviction?.text).toMatch(
      /No summary could be written \(the summarizer failed\): your checkpoint stands for seq \d+-\d+\.$/,
    );
  });

  it('compact: with no summarize stage configured, says the instruction cannot shape a summary', async () => {
    const baton = createBaton({ contextWindow: 30_000, stages: [foldToolResults()] });
    const session = baton.session('fold-only');
    const before = await session.prepare({ entries: toolHistory(20) });
    const answer = (await tool(session, 'compact').execute({ instruction: 'keep file names' })) as {
      message: string;
    };
    const target = Math.round(before.tokens.after / 2).toLocaleString('en-US');
    expect(answer.message).toContain(`until the context is at most about ${target} tokens.`);
    expect(answer.message).toContain(
      'Your instruction cannot shape a summary: no summarize stage is configured; your notes carry what you keep.',
    );
    expect(answer.message).not.toContain('follows your instruction');
  });

  it('compact: says so, and schedules nothing, when nothing is left to compact', async () => {
    const session = createBaton({ contextWindow: 30_000 }).session('short');
    const history = [createEntry(0, 'user', 'OPENING'), createEntry(1, 'assistant', 'ok')];
    const before = await session.prepare({ entries: history });
    const answer = (await tool(session, 'compact').execute({ instruction: 'keep it' })) as {
      scheduled: boolean;
      message: string;
    };
    expect(answer.scheduled).toBe(false);
    expect(answer.message).toBe(
      `Nothing to compact: the context (about ${before.tokens.after} tokens) holds only your newest turns, pinned tool results and the current request, which compaction keeps. No compaction was scheduled.`,
    );
    const next = await session.prepare({ entries: history });
    expect(next.outcome).toBe('ok');
    expect(next.events.some((e) => e.type === 'stage-completed')).toBe(false);
  });

  it('recall: by ref, range and query, paged, framed as data, scoped to the session', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('mine');
    const history = toolHistory(12);
    await session.prepare({ entries: history });
    const recall = tool(session, 'recall');
    const evicted = history[2]!;
    const original = evicted.parts[0]!.type === 'tool-result' ? (evicted.parts[0]!.output as string) : '';

    const byRef = (await recall.execute({ ref: evicted.key })) as {
      content: string;
      note: string;
      totalChars: number;
    };
    expect(byRef.content).toBe(original);
    expect(byRef.note).toMatch(/data, not new instructions/);
    const page = (await recall.execute({ ref: evicted.key, offset: 10, limit: 25 })) as {
      content: string;
      nextOffset: number;
    };
    expect(page.content).toBe(original.slice(10, 35));
    expect(page.nextOffset).toBe(35);
    const range = (await recall.execute({ from: 1, to: 3 })) as {
      content: string;
      records: { seq: number }[];
    };
    expect(range.records.map((r) => r.seq)).toContain(2);
    expect(range.records.every((r) => r.seq >= 1 && r.seq <= 3)).toBe(true);
    expect(range.content).toContain(original);
    const query = (await recall.execute({ query: 'result 0:' })) as { records: { ref: string }[] };
    expect(query.records.map((r) => r.ref)).toContain(evicted.key);

    await expect(recall.execute({})).rejects.toThrow(
      /recall takes one of \{ "ref": "…" \}, \{ "from": 12, "to": 30 \} or \{ "query": "words" \}/,
    );
    await expect(recall.execute({ ref: 'x', query: 'y' })).rejects.toThrow(/more than one/);
    await expect(recall.execute({ from: 5 })).rejects.toThrow(/needs both "from" and "to"/);
    await expect(recall.execute({ ref: 'nope' })).rejects.toThrow(/nothing is archived under ref "nope"/);
    // Another session of the same store cannot read it.
    const other = baton.session('theirs');
    await expect(tool(other, 'recall').execute({ ref: evicted.key })).rejects.toThrow(/nothing is archived/);
  });
});

describe('notices', () => {
  it('warning: once when crossing warnAt, not again until a compaction brought the context below warnAt', async () => {
    const session = createBaton({ contextWindow: 10_000 }).session('s');
    const history = toolHistory(30);
    const warnings: number[] = [];
    const compactions: number[] = [];
    for (let i = 2; i <= history.length; i++) {
      if (history[i - 1]!.role === 'assistant' && i < history.length) continue;
      const p = await session.prepare({ entries: history.slice(0, i) });
      if (p.notices.some((n) => n.type === 'warning')) warnings.push(i);
      if (p.outcome === 'compacted') compactions.push(i);
    }
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    // Between two warnings there is always a compaction.
    for (let w = 1; w < warnings.length; w++) {
      expect(compactions.some((c) => c > warnings[w - 1]! && c <= warnings[w]!)).toBe(true);
    }
  });

  it('eviction notice: a line per evicted span (folds together) with its recall, on the call that evicted, then gone', async () => {
    const session = createBaton({ contextWindow: 8_000 }).session('s');
    const history = toolHistory(12);
    const first = await session.prepare({ entries: history });
    const notice = first.notices.find((n) => n.type === 'eviction')!;
    const spans = first.events.filter((e) => e.type === 'stage-completed');
    expect(spans.length).toBeGreaterThan(0);
    const lines = notice.text.split('\n').filter((l) => l.startsWith('- seq'));
    expect(lines.length).toBeGreaterThan(0);
    // Folds get one line (each placeholder carries its ref); every other span its recall call.
    for (const line of lines)
      expect(line).toMatch(/-> recall\(\{ "(ref|from)"|one-line placeholder in place, with its recall ref$/);
    expect(notice.text).not.toMatch(/no milestone/);
    const second = await session.prepare({ entries: history });
    expect(second.notices).toEqual([]);
  });
});

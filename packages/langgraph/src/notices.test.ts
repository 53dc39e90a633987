import { isNoticesText } from '@baton/core/internals';
import { shardDump } from '@baton/test-support/incidents.ts';
import { expectedTokensLeft, filler, type NoticeFigures, readNotices } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware } from './index.ts';

// 16,000 − 4,000 reserved for output: the input budget every figure is checked against.
const WINDOW = { contextWindow: 16_000, reserveOutput: 4_000 };
const BUDGET = 12_000;

const fileText = (path: string) => `${path}\n${filler(2_400, path.length)}`;
const readFile = tool(async ({ path }: { path: string }) => fileText(path), {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

/** Baton's notices of one model call: the last message when it is the trailing notices message. */
const noticesOf = (messages: BaseMessage[]): NoticeFigures => {
  const last = messages.at(-1);
  return readNotices(last?.type === 'human' && isNoticesText(last.text) ? last.text : '');
};

/** A fake model whose every reply is decided from exactly the messages it is sent. */
function scripted(steps: number, decide: (messages: BaseMessage[], step: number) => AIMessage | Error) {
  const seen: BaseMessage[][] = [];
  let step = 0;
  const model = fakeModel();
  for (let i = 0; i < steps; i++) {
    model.respond((messages: BaseMessage[]) => {
      seen.push(messages);
      return decide(messages, step++);
    });
  }
  return { model, seen };
}

const calls = (step: number, list: Array<{ name: string; args: Record<string, unknown> }>) =>
  new AIMessage({
    content: '',
    tool_calls: list.map(({ name, args }, i) => ({
      id: `c${step}_${i}`,
      name,
      args,
      type: 'tool_call' as const,
    })),
  });

describe('notices in the messages createAgent sends the model', () => {
  it('warns once per episode with the tokens left by the budget; the eviction notice indexes what went and recall brings it back', async () => {
    let recallAsked: { from: number; to: number } | undefined;
    const { model, seen } = scripted(80, (messages, step) => {
      const line = noticesOf(messages).eviction?.lines[0];
      if (!recallAsked && line) {
        recallAsked = { from: line.from, to: line.to };
        return calls(step, [{ name: 'recall', args: recallAsked }]);
      }
      if (step >= 60) return new AIMessage('done');
      return calls(step, [{ name: 'read_file', args: { path: `src/file_${step}.ts` } }]);
    });
    const agent = createAgent({
      model,
      tools: [readFile],
      // A target folding alone reaches at the first compaction: the notice has fold lines.
      middleware: [batonMiddleware({ ...WINDOW, targetAt: 0.5 })],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Read the files.')] },
      { configurable: { thread_id: 'warn-evict' }, recursionLimit: 1_000 },
    );
    const notices = seen.map(noticesOf);

    // The warning: once in every episode (between two evictions), with its figures right.
    const firstEviction = notices.findIndex((n) => n.eviction);
    expect(firstEviction).toBeGreaterThan(0);
    const warnings = notices.flatMap((n, i) => (n.warning ? [{ i, ...n.warning }] : []));
    expect(warnings.filter((w) => w.i < firstEviction)).toHaveLength(1);
    for (const warning of warnings) {
      expect(warning.budget).toBe(BUDGET);
      expect(warning.tokensLeft).toBe(expectedTokensLeft(warning.tokens, BUDGET));
      expect(warning.tokensLeft).toBeGreaterThan(0);
      expect(warning.percent).toBeGreaterThanOrEqual(64);
      const nextEviction = notices.findIndex((n, i) => i > warning.i && n.eviction);
      const episode = notices.slice(warning.i + 1, nextEviction < 0 ? undefined : nextEviction);
      expect(episode.filter((n) => n.warning)).toHaveLength(0);
    }

    // The eviction notice: its stages, an index line per span, the recall forms.
    const eviction = notices[firstEviction]!.eviction!;
    expect(eviction.tokensFreed).toBeGreaterThan(0);
    expect(eviction.recallForms).toBe(true);
    expect(eviction.lines.length).toBeGreaterThan(0);
    for (const line of eviction.lines) {
      expect(eviction.stages).toContain(line.stage);
      expect(line.from).toBeLessThanOrEqual(line.to);
      if (line.stage !== 'fold-tool-results') expect(line.recall).toBeDefined();
    }
    // At every eviction, the folds it lists are the results the model now reads as placeholders:
    // a result folded and then summarized or dropped in the same compaction is listed with the
    // stage that took it, never as a placeholder in place.
    notices.forEach((n, i) => {
      if (!n.eviction) return;
      const results = seen[i]!.filter((m) => m.type === 'tool').map((m) => m.text);
      const placeholders = results.filter(
        (text) => !text.includes(filler(2_400, text.split('\n')[0]!.length)),
      );
      const folded = n.eviction.lines.filter((line) => line.stage === 'fold-tool-results');
      expect(folded.reduce((count, line) => count + line.count, 0)).toBe(placeholders.length);
      for (const line of folded) expect(line.description).toMatch(/^read_file/);
    });
    expect(notices.some((n) => n.eviction?.lines.some((line) => line.stage === 'fold-tool-results'))).toBe(
      true,
    );
    // Later evictions go past folding (drop, summarize): each such line names the calls its
    // span held and gives the recall of exactly its own range (or its one ref).
    const wider = notices
      .flatMap((n) => n.eviction?.lines ?? [])
      .filter((line) => line.stage !== 'fold-tool-results');
    expect(wider.length).toBeGreaterThan(0);
    for (const line of wider) {
      if (line.from === line.to && line.count === 1) expect(line.recall).toHaveProperty('ref');
      else expect(line.recall).toEqual({ from: line.from, to: line.to });
      expect(line.description).toMatch(/^read_file\(\{"path":"src\/file_\d+\.ts"\}\)/);
    }

    // The agent recalls the first span the index lists and gets the results verbatim.
    const answer = result.messages.find(
      (m): m is ToolMessage => m.type === 'tool' && (m as ToolMessage).name === 'recall',
    );
    const recalled = JSON.parse(answer!.text) as { content: string; records: Array<{ seq: number }> };
    expect(recalled.records.length).toBeGreaterThan(0);
    for (const record of recalled.records) {
      expect(record.seq).toBeGreaterThanOrEqual(recallAsked!.from);
      expect(record.seq).toBeLessThanOrEqual(recallAsked!.to);
    }
    expect(recalled.content).toContain(fileText('src/file_0.ts'));
  });

  it('the degrade notice names each preview with its true size and a ref recall pages through', async () => {
    const full = (shard: number) => shardDump(shard).repeat(6);
    const fetchShard = tool(async ({ shard }: { shard: number }) => full(shard), {
      name: 'fetch_shard',
      description: 'Fetch a shard dump',
      schema: z.object({ shard: z.number() }),
    });
    let previews: NoticeFigures['degrade'];
    const { model } = scripted(3, (messages, step) => {
      if (step === 0)
        return calls(
          step,
          [0, 1, 2, 3].map((shard) => ({ name: 'fetch_shard', args: { shard } })),
        );
      if (step === 1) {
        previews = noticesOf(messages).degrade;
        const last = previews?.at(-1);
        return calls(step, [
          { name: 'recall', args: { ref: last?.ref, offset: (last?.chars ?? 0) - 60, limit: 60 } },
        ]);
      }
      return new AIMessage('done');
    });
    const agent = createAgent({
      model,
      tools: [fetchShard],
      middleware: [batonMiddleware({ model: 'gpt-4o' })],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Fetch the four shards.')] },
      { configurable: { thread_id: 'degrade' } },
    );
    expect(previews).toHaveLength(4);
    for (const [shard, preview] of previews!.entries()) {
      expect(preview.what).toBe('fetch_shard');
      expect(preview.chars).toBe(full(shard).length);
      expect(preview.shown).toBeLessThan(preview.chars);
    }
    expect(new Set(previews!.map((p) => p.ref)).size).toBe(4);
    // The ref and size the notice gives read the last 60 characters of the fourth result.
    const answer = result.messages.find((m) => m.type === 'tool' && (m as ToolMessage).name === 'recall');
    expect((JSON.parse(answer!.text) as { content: string }).content).toBe(full(3).slice(-60));
  });

  it('the turn after an unfit step opens with the unfit notice, once, naming the checkpoint the host was given', async () => {
    const overflow = Object.assign(new Error('prompt is too long: 40000 tokens > 12000 maximum'), {
      name: 'ContextOverflowError',
    });
    const { model, seen } = scripted(6, (_m, step) => {
      if (step < 2) return calls(step, [{ name: 'read_file', args: { path: `f${step}.ts` } }]);
      if (step < 4) return overflow;
      return new AIMessage('carrying on');
    });
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [batonMiddleware(WINDOW)],
      checkpointer: new MemorySaver(),
      store: new InMemoryStore(),
    });
    const config = { configurable: { thread_id: 'unfit-next' } };
    const first = await agent.invoke({ messages: [new HumanMessage('Read two files.')] }, config);
    const told = (first.messages.at(-1) as AIMessage).response_metadata?.baton as {
      outcome: string;
      reason: string;
      checkpointRef: string;
    };
    expect(told.outcome).toBe('unfit');
    const sentBefore = seen.length;
    const second = await agent.invoke({ messages: [new HumanMessage('Try again.')] }, config);
    expect(second.messages.at(-1)!.text).toBe('carrying on');

    const unfit = noticesOf(seen[sentBefore]!).unfit;
    expect(unfit).toBeDefined();
    expect(unfit!.checkpointRef).toBe(told.checkpointRef);
    expect(unfit!.reason).toBe(told.reason);
    expect(unfit!.budget).toBe(BUDGET);
    // Told once: the next turn does not repeat it.
    await agent.invoke({ messages: [new HumanMessage('And now?')] }, config);
    expect(seen.length).toBe(sentBefore + 2);
    expect(noticesOf(seen.at(-1)!).unfit).toBeUndefined();
  });
});

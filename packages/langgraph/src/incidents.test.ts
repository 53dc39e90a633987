import { NOTICES_HEADING } from '@baton/core/internals';
import { progressIn } from '@baton/test-support/incidents.ts';
import { filler } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware, degrade, summarize, truncateOldest } from './index.ts';

const textOf = (messages: BaseMessage[]) => messages.map((m) => m.text).join('\n');
/** Baton's notices of this call: the last message when it is the trailing notices message. */
const noticesOf = (messages: BaseMessage[]) => {
  const last = messages.at(-1);
  return last?.type === 'human' && last.text.startsWith(NOTICES_HEADING) ? last.text : '';
};
/** The conversation without the trailing notices. */
const conversationOf = (messages: BaseMessage[]) => (noticesOf(messages) ? messages.slice(0, -1) : messages);
/** What the model reads, tool call arguments included (where its own notes writes are). */
const visibleOf = (messages: BaseMessage[]) =>
  messages.map((m) => `${m.text}\n${JSON.stringify((m as AIMessage).tool_calls ?? [])}`).join('\n');
const call = (id: string, name: string, args: Record<string, unknown>) =>
  new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] });

function scripted(steps: number, decide: (messages: BaseMessage[], step: number) => AIMessage) {
  let step = 0;
  const model = fakeModel();
  for (let i = 0; i < steps; i++) model.respond((messages: BaseMessage[]) => decide(messages, step++));
  return model;
}

describe('incidents through createAgent', () => {
  const SKILL = `SKILL deploy-v2\n${Array.from({ length: 12 }, (_, i) => `STEP-${i + 1}: ${filler(220, i)}`).join('\n')}`;

  async function skillRun(pinnedTools: string[]) {
    let loads = 0;
    const model = scripted(200, (messages, step) => {
      if (!textOf(messages).includes('STEP-12:'))
        return call(`s${step}`, 'load_skill', { name: 'deploy-v2' });
      // Its notes (in the system prompt as of the last compaction) or its own later writes.
      const progress = progressIn(visibleOf(messages));
      if (progress >= 30) return new AIMessage(`deployed after ${progress} steps`);
      return new AIMessage({
        content: '',
        tool_calls: [
          { id: `r${step}`, name: 'run_step', args: { n: progress + 1 }, type: 'tool_call' },
          {
            id: `n${step}`,
            name: 'notes',
            args: { action: 'write', section: 'progress', text: `progress: ${progress + 1}` },
            type: 'tool_call',
          },
        ],
      });
    });
    const agent = createAgent({
      model,
      tools: [
        tool(
          async () => {
            loads++;
            return SKILL;
          },
          { name: 'load_skill', description: 'Load a skill', schema: z.object({ name: z.string() }) },
        ),
        tool(async ({ n }: { n: number }) => `step ${n}\n${filler(1_400, n)}`, {
          name: 'run_step',
          description: 'Run a step',
          schema: z.object({ n: z.number() }),
        }),
      ],
      middleware: [batonMiddleware({ contextWindow: 6_000, pinnedTools })],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Deploy with the deploy-v2 skill.')] },
      { configurable: { thread_id: `skill-${pinnedTools.length}` }, recursionLimit: 1_000 },
    );
    return { loads, last: result.messages.at(-1)!.text };
  }

  it('skill reload loop: pinned, the skill loads once; unpinned, it reloads again and again', async () => {
    const pinned = await skillRun(['load_skill']);
    expect(pinned.loads).toBe(1);
    expect(pinned.last).toBe('deployed after 30 steps');
    expect((await skillRun([])).loads).toBeGreaterThan(5);
  });

  it('unfit batch: fresh results too large become previews; pinned and too large, the turn ends with an explaining message', async () => {
    const dump = (i: number) =>
      Array.from({ length: 30_000 }, (_, k) => `${(k * 7919 + i) % 100_003}:${(k * 31 + i) % 97}`).join(' ');
    const fetchShard = tool(async ({ shard }: { shard: number }) => dump(shard), {
      name: 'fetch_shard',
      description: 'Fetch a shard dump',
      schema: z.object({ shard: z.number() }),
    });
    let secondNotices = '';
    const model = scripted(3, (messages, step) => {
      if (step === 0) {
        return new AIMessage({
          content: '',
          tool_calls: [0, 1, 2, 3].map((i) => ({
            id: `d${i}`,
            name: 'fetch_shard',
            args: { shard: i },
            type: 'tool_call' as const,
          })),
        });
      }
      secondNotices = noticesOf(messages);
      return new AIMessage('found it');
    });
    const agent = createAgent({
      model,
      tools: [fetchShard],
      middleware: [batonMiddleware({ model: 'gpt-4o' })],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Fetch the shards.')] },
      { configurable: { thread_id: 'batch' } },
    );
    expect(secondNotices).toMatch(/4 tool results were too large for the context window/);
    expect(result.messages.at(-1)!.text).toBe('found it');

    const tiny = createAgent({
      model: scripted(2, (_m, step) =>
        step === 0 ? call('x', 'fetch_shard', { shard: 1 }) : new AIMessage('never'),
      ),
      tools: [fetchShard],
      middleware: [batonMiddleware({ contextWindow: 8_000, pinnedTools: ['fetch_shard'] })],
      store: new InMemoryStore(),
    });
    const blocked = await tiny.invoke(
      { messages: [new HumanMessage('Fetch shard 1.')] },
      { configurable: { thread_id: 'tiny' } },
    );
    const last = blocked.messages.at(-1) as AIMessage;
    expect(last.text).toMatch(/not sent to the model.*pinned tool fetch_shard/s);
    expect(last.response_metadata?.baton).toMatchObject({ outcome: 'unfit' });
  });

  it('recall after eviction: the agent reads the notice, recalls the fact verbatim and answers with it', async () => {
    const FACT = 'INC-88213 traced to commit 4f1e9ab';
    let evicted = false;
    const model = scripted(60, (messages, step) => {
      const last = conversationOf(messages).at(-1)!;
      if (evicted && last.type === 'tool')
        return new AIMessage(
          `root cause: ${/INC-\d+ traced to commit \w+/.exec(last.text)?.[0] ?? 'unknown'}`,
        );
      if (!evicted && noticesOf(messages).includes('Context was compacted')) {
        evicted = true;
        expect(textOf(messages.filter((m) => m.type !== 'system'))).not.toContain(FACT);
        return call(`q${step}`, 'recall', { query: 'INC-88213' });
      }
      return call(`s${step}`, 'search_logs', { page: step });
    });
    const agent = createAgent({
      model,
      tools: [
        tool(
          async ({ page }: { page: number }) =>
            `page ${page}\n${page === 1 ? `${FACT}\n` : ''}${filler(1_800, page)}`,
          {
            name: 'search_logs',
            description: 'Search the logs',
            schema: z.object({ page: z.number() }),
          },
        ),
      ],
      middleware: [batonMiddleware({ contextWindow: 8_000 })],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Find the root cause.')] },
      { configurable: { thread_id: 'recall' }, recursionLimit: 500 },
    );
    expect(evicted).toBe(true);
    expect(result.messages.at(-1)!.text).toBe(`root cause: ${FACT}`);
  });

  it('a summarizer error leaves the history intact (no error text in place of messages)', async () => {
    const seen: BaseMessage[][] = [];
    const types: string[] = [];
    const model = scripted(30, (messages, step) => {
      seen.push(messages);
      return step >= 25 ? new AIMessage('done') : call(`s${step}`, 'search_logs', { page: step });
    });
    const agent = createAgent({
      model,
      tools: [
        tool(async ({ page }: { page: number }) => filler(1_800, page), {
          name: 'search_logs',
          description: 'Search',
          schema: z.object({ page: z.number() }),
        }),
      ],
      middleware: [
        batonMiddleware({
          contextWindow: 8_000,
          onEvent: (event) => types.push(event.type),
          summarizer: async () => {
            throw new Error('summarizer model unavailable');
          },
          // Summarize first: with the default ladder, whether folding alone reaches the target
          // depends on the random message ids in the recall refs it writes.
          stages: [summarize(), truncateOldest(), degrade()],
        }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('Search.')] }, { recursionLimit: 500 });
    expect(result.messages.at(-1)!.text).toBe('done');
    expect(JSON.stringify(seen)).not.toContain('summarizer model unavailable');
    expect(result.messages.length).toBe(1 + 25 * 2 + 1);
    expect(types).toContain('summarizer-failed');
  });
});

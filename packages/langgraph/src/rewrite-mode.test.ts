import { BatonConfigError, gptTokenizer, TokenCounter } from '@baton/core';
import { MISSING_RESULT_TEXT, pairingViolation } from '@baton/core/internals';
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { Command, InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, humanInTheLoopMiddleware, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware, langGraphStore, toEntries } from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);
const body = (n: number) =>
  Array.from({ length: 60 }, (_, l) => `line ${l}: value_${(n * 31 + l) % 97}`).join('\n');
const readFile = tool(async ({ n }: { n: number }) => `file ${n}\n${body(n)}`, {
  name: 'read_file',
  description: 'Read file n',
  schema: z.object({ n: z.number() }),
});

/**
 * A rewrite-mode agent that reads files and, at model call `deployAt`, asks to deploy: a call
 * `humanInTheLoopMiddleware` holds for approval. Done after the call that follows it.
 */
function deployingAgent(deployAt: number) {
  let step = 0;
  const model = fakeModel();
  for (let i = 0; i < 20; i++) {
    model.respond(() => {
      const s = step++;
      if (s === deployAt) {
        return new AIMessage({
          content: '',
          tool_calls: [{ id: 'deploy-call', name: 'deploy', args: { target: 'prod' }, type: 'tool_call' }],
        });
      }
      if (s > deployAt) return new AIMessage('done');
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `h${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
      });
    });
  }
  const deploy = tool(async ({ target }: { target: string }) => `DEPLOYED to ${target}`, {
    name: 'deploy',
    description: 'Deploy',
    schema: z.object({ target: z.string() }),
  });
  return createAgent({
    model,
    tools: [readFile, deploy],
    middleware: [
      humanInTheLoopMiddleware({ interruptOn: { deploy: true } }),
      batonMiddleware({ contextWindow: 6_000, mode: 'rewrite' }),
    ],
    checkpointer: new MemorySaver(),
    store: new InMemoryStore(),
  });
}

const CONTINUE = {
  decision: 'CONTINUE',
  criteria: [{ id: 'closed-unit', answer: 'N', evidence: 'still reading' }],
};

describe("batonMiddleware({ mode: 'rewrite' })", () => {
  it('compacts the checkpointed state with the model call, archives first, and tells the model what was evicted', async () => {
    const seen: BaseMessage[][] = [];
    let step = 0;
    const model = fakeModel();
    for (let i = 0; i < 40; i++) {
      model.respond((messages: BaseMessage[]) => {
        seen.push(messages);
        const s = step++;
        if (s >= 30) return new AIMessage('done');
        return new AIMessage({
          content: '',
          tool_calls: [{ id: `c${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
        });
      });
    }
    const store = new InMemoryStore();
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [batonMiddleware({ contextWindow: 8_000, mode: 'rewrite' })],
      checkpointer: new MemorySaver(),
      store,
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Read 30 files.')] },
      { configurable: { thread_id: 'rw' }, recursionLimit: 500 },
    );

    expect(result.messages.at(-1)!.text).toBe('done');
    // The state itself is compacted (view mode would keep 1 + 30 * 2 + 1 messages).
    expect(result.messages.length).toBeLessThan(1 + 30 * 2 + 1);
    for (const messages of seen) {
      const entries = toEntries(messages);
      expect(entries.reduce((sum, e) => sum + counter.raw(e), 0)).toBeLessThanOrEqual(8_000 - 1_600);
      expect(pairingViolation(entries.filter((e) => e.role !== 'system'))).toBeUndefined();
    }
    // The model was told of each compaction once, after the conversation, in the call that
    // compacted; never again after (the state never keeps the notices).
    const notices = seen.map((messages) => {
      const last = messages.at(-1)!;
      return last.type === 'human' && last.text.includes('Context was compacted') ? last.text : '';
    });
    for (const messages of seen)
      expect(messages.slice(0, -1).some((m) => m.text.includes('Context was compacted'))).toBe(false);
    expect(notices.filter((n) => n.length > 0).length).toBeGreaterThan(0);
    const toldTwice = notices.filter((n, i) => n.length > 0 && notices.slice(i + 1).includes(n));
    expect(toldTwice).toEqual([]);
    // Evicted results are in the graph's store, verbatim.
    const archived = await langGraphStore(store).searchArchive('rw', 'file 2\n', 10);
    expect(
      archived.some((r) => JSON.stringify(r.entry.parts).includes(JSON.stringify(body(2)).slice(1, -1))),
    ).toBe(true);
  });

  it('prepares once per model call: the probe schedule counts exactly the model calls', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    const model = fakeModel();
    for (let i = 0; i < 20; i++) {
      model.respond((messages: BaseMessage[]) => {
        // A continuation summary Baton asks of the same model is not a step of the agent.
        if (messages[0]?.type === 'system') return new AIMessage('Read files 0 to 9; all fine.');
        const s = calls++;
        if (s >= 12) return new AIMessage('done');
        return new AIMessage({
          content: '',
          tool_calls: [{ id: `p${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
        });
      });
    }
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [
        batonMiddleware({
          contextWindow: 8_000,
          mode: 'rewrite',
          // A judge that always continues: the schedule is what is measured.
          selfCompact: { probeEvery: 1, minSteps: 0, judge: async () => ({ output: CONTINUE }) },
        }),
      ],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke(
      { messages: [new HumanMessage('Read 12 files.')] },
      { configurable: { thread_id: 'probe-steps' }, recursionLimit: 200 },
    );
    const state = await langGraphStore(store).getDocument<{ probe?: { steps: number } }>(
      'baton/state',
      'probe-steps',
    );
    expect(calls).toBe(13);
    expect(state?.value.probe?.steps).toBe(calls);
  });

  it('never stores a result Baton made up for a call awaiting approval, even when the step compacts the thread', async () => {
    const agent = deployingAgent(8);
    const config = { configurable: { thread_id: 'hitl' }, recursionLimit: 200 };
    const paused = await agent.invoke({ messages: [new HumanMessage('Read files, then deploy.')] }, config);
    expect(paused.__interrupt__).toBeDefined();
    // While it waits, the user adds a long message: the next model call compacts (so the
    // thread is rewritten) and needs the pending call answered for the provider, but the
    // thread must not store that stand-in.
    const during = await agent.invoke(
      { messages: [new HumanMessage(`What is pending? Context: ${body(99).repeat(4)}`)] },
      config,
    );
    const stored = JSON.stringify((await agent.graph.getState(config)).values);
    expect(stored).not.toContain(MISSING_RESULT_TEXT);
    expect(JSON.stringify(during.messages)).not.toContain(MISSING_RESULT_TEXT);
  });

  it('resumes an approved call with the real tool result in the thread', async () => {
    const agent = deployingAgent(6);
    const config = { configurable: { thread_id: 'hitl-approve' }, recursionLimit: 200 };
    const paused = await agent.invoke({ messages: [new HumanMessage('Read files, then deploy.')] }, config);
    expect(paused.__interrupt__).toBeDefined();
    const resumed = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
    expect(resumed.messages.at(-1)!.text).toBe('done');
    const results = resumed.messages.filter(
      (m) => m.type === 'tool' && (m as ToolMessage).tool_call_id === 'deploy-call',
    );
    expect(results.map((m) => m.text)).toEqual(['DEPLOYED to prod']);
    expect(JSON.stringify(resumed.messages)).not.toContain(MISSING_RESULT_TEXT);
  });

  it('rejects an unknown mode with a typed error', () => {
    expect(() => batonMiddleware({ contextWindow: 8_000, mode: 'both' as never })).toThrow(BatonConfigError);
    expect(() => batonMiddleware({ contextWindow: 8_000, mode: 'both' as never })).toThrow(
      /mode: expected 'view' or 'rewrite'/,
    );
  });
});

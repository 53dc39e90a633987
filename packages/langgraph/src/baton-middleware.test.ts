import { gptTokenizer, TokenCounter } from '@baton/core';
import { pairingViolation } from '@baton/core/internals';
import { filler } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, createMiddleware, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware, toEntries } from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);

const readFile = tool(async ({ path }: { path: string }) => `${path}\n${filler(2_000, path.length)}`, {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

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

const callTool = (step: number, name: string, args: Record<string, unknown>) =>
  new AIMessage({ content: '', tool_calls: [{ id: `c${step}`, name, args, type: 'tool_call' }] });

describe('batonMiddleware through createAgent', () => {
  it('keeps a 200-step loop within budget, pairs tools, keeps notes in the system prompt, and leaves the checkpoint intact', async () => {
    const middleware = batonMiddleware({ contextWindow: 16_000 });
    const { model, seen } = scripted(201, (_messages, step) => {
      if (step === 5)
        return callTool(step, 'notes', { action: 'write', section: 'plan', text: 'audit then ship' });
      if (step >= 199) return new AIMessage('done');
      return callTool(step, 'read_file', { path: `src/f${step}.ts` });
    });
    const checkpointer = new MemorySaver();
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [middleware],
      checkpointer,
      store: new InMemoryStore(),
      systemPrompt: 'You audit code.',
    });
    const config = { configurable: { thread_id: 'loop' }, recursionLimit: 1_000 };
    const result = await agent.invoke({ messages: [new HumanMessage('Audit the repo.')] }, config);

    expect(seen.length).toBe(200);
    const budget = 16_000 - 3_200;
    for (const messages of seen) {
      const entries = toEntries(messages);
      expect(entries.reduce((sum, e) => sum + counter.raw(e), 0)).toBeLessThanOrEqual(budget);
      expect(pairingViolation(entries.filter((e) => e.role !== 'system'))).toBeUndefined();
    }
    const system150 = seen[150]!
      .filter((m) => m.type === 'system')
      .map((m) => m.text)
      .join('\n');
    expect(system150).toContain('You audit code.');
    expect(system150).toContain('### plan\naudit then ship');
    // View mode: the checkpointed history is complete and unchanged.
    expect(result.messages.length).toBe(1 + 199 * 2 + 1);
    const state = (await (agent as unknown as { getState(c: typeof config): Promise<unknown> }).getState(
      config,
    )) as {
      values: { messages: BaseMessage[] };
    };
    expect(state.values.messages.length).toBe(result.messages.length);
    expect(JSON.stringify(state.values.messages[4]!.content)).toContain('src/f1.ts');
  });

  it('never sends an orphaned ToolMessage, including when only some tool-call ids match (langchain#38352)', async () => {
    const middleware = batonMiddleware({ contextWindow: 32_000 });
    const { model, seen } = scripted(2, () => new AIMessage('ok'));
    const agent = createAgent({ model, tools: [readFile], middleware: [middleware] });
    const { ToolMessage } = await import('@langchain/core/messages');
    await agent.invoke({
      messages: [
        new HumanMessage('go'),
        new AIMessage({
          content: '',
          tool_calls: [{ id: 'a', name: 'read_file', args: { path: 'x' }, type: 'tool_call' }],
        }),
        new ToolMessage({ content: 'result a', tool_call_id: 'a' }),
        new ToolMessage({ content: 'stray result', tool_call_id: 'b' }),
        new HumanMessage('and now?'),
      ],
    });
    const sent = seen[0]!;
    expect(
      sent.some((m) => m.type === 'tool' && (m as InstanceType<typeof ToolMessage>).tool_call_id === 'b'),
    ).toBe(false);
    expect(pairingViolation(toEntries(sent).filter((e) => e.role !== 'system'))).toBeUndefined();
  });

  it('recovers a context overflow once, then ends the turn with an explaining AIMessage instead of throwing', async () => {
    const overflow = Object.assign(new Error('prompt is too long: 40000 tokens > 16000 maximum'), {
      name: 'ContextOverflowError',
    });
    const middleware = batonMiddleware({ contextWindow: 16_000 });
    let failed = false;
    const { model, seen } = scripted(40, (_m, step) => {
      if (step === 3 && !failed) {
        failed = true;
        return overflow;
      }
      if (step >= 6) return overflow;
      return callTool(step, 'read_file', { path: `f${step}` });
    });
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [middleware],
      store: new InMemoryStore(),
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('read')] },
      { configurable: { thread_id: 'of' } },
    );
    const last = result.messages.at(-1) as AIMessage;
    expect(String(last.content)).toMatch(/not sent to the model/);
    expect(last.response_metadata?.baton).toMatchObject({ outcome: 'unfit' });
    // The first overflow was recovered: its retry (call 4) went on with the work, and only the
    // second overflow in a row (calls 6 and 7) ended the turn.
    expect(seen).toHaveLength(8);
    const read = result.messages.filter((m) => m.type === 'tool').map((m) => m.text.split('\n')[0]);
    expect(read).toEqual(['f0', 'f1', 'f2', 'f4', 'f5']);
  });
});

describe('batonMiddleware over the same message objects', () => {
  it('sees a message another middleware edited in place, though the messages around it are the same objects', async () => {
    // An outer middleware that, from the fourth call on, swaps the first tool result's content
    // for one six times its size, in place.
    const bloated = `src/g0.ts (expanded)\n${filler(70_000, 7)}`;
    const editor = createMiddleware({
      name: 'editor',
      wrapModelCall: async (request, handler) => {
        const results = request.messages.filter((m) => m.type === 'tool');
        if (results.length >= 3) (results[0] as { content: unknown }).content = bloated;
        return handler(request);
      },
    });
    // What the model was sent at each call, counted when it was sent (message text only).
    const sent: number[] = [];
    const { model } = scripted(7, (messages, step) => {
      sent.push(messages.reduce((sum, m) => sum + counter.text(String(m.content)), 0));
      return step >= 6 ? new AIMessage('done') : callTool(step, 'read_file', { path: `src/g${step}.ts` });
    });
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [editor, batonMiddleware({ contextWindow: 16_000 })],
    });
    await agent.invoke(
      { messages: [new HumanMessage('Read six files.')] },
      { configurable: { thread_id: 'edit' } },
    );
    expect(sent).toHaveLength(7);
    // Baton measured the edited message as it is now: no prompt went past the input budget.
    for (const tokens of sent) expect(tokens).toBeLessThanOrEqual(16_000 - 3_200);
  });
});

describe('batonMiddleware after an unfit turn', () => {
  it('never re-sends the stored unfit reply to the model on the next turn', async () => {
    const overflow = Object.assign(new Error('prompt is too long: 40000 tokens > 16000 maximum'), {
      name: 'ContextOverflowError',
    });
    const { model, seen } = scripted(3, (_m, step) => (step < 2 ? overflow : new AIMessage('fine now')));
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [batonMiddleware({ contextWindow: 16_000 })],
      checkpointer: new MemorySaver(),
      store: new InMemoryStore(),
    });
    const config = { configurable: { thread_id: 'after-unfit' } };
    const first = await agent.invoke({ messages: [new HumanMessage('first')] }, config);
    expect(first.messages.at(-1)!.text).toMatch(/not sent to the model/);
    const second = await agent.invoke({ messages: [new HumanMessage('second')] }, config);
    expect(second.messages.at(-1)!.text).toBe('fine now');
    // The thread keeps the reply (it is the user's history), the model never reads it back.
    expect(JSON.stringify(second.messages)).toContain('not sent to the model');
    expect(
      seen
        .at(-1)!
        .map((m) => m.text)
        .join('\n'),
    ).not.toContain('not sent to the model');
  });
});

describe('batonMiddleware without a LangGraph store', () => {
  it('falls back to memory and says so once with a store-fallback event', async () => {
    const events: string[] = [];
    const middleware = batonMiddleware({ contextWindow: 16_000, onEvent: (e) => events.push(e.type) });
    const model = fakeModel();
    model.respond(new AIMessage('one'));
    model.respond(new AIMessage('two'));
    const agent = createAgent({ model, tools: [readFile], middleware: [middleware] });
    await agent.invoke({ messages: [new HumanMessage('hi')] });
    await agent.invoke({ messages: [new HumanMessage('again')] });
    expect(events.filter((t) => t === 'store-fallback')).toHaveLength(1);
  });
});

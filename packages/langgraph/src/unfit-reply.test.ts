import { UNFIT_STEP_PREFIX } from '@baton/core';
import { filler } from '@baton/testing';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createAgent, fakeModel } from 'langchain';
import { describe, expect, it } from 'vitest';
import { batonMiddleware, createCompactionNode, routeAfterCompaction } from './index.ts';

/** The first words of the next-turn unfit notice (core's `unfitNotice`). */
const UNFIT_NOTICE = '[baton] The previous step could not fit the context window';
const WINDOW = 4_000;
/**
 * A user message larger than the whole window, in short text blocks no preview can shorten
 * (degrade previews a long text, not a part under its preview size): that turn ends as unfit
 * before any model call.
 */
const paste = () =>
  new HumanMessage({
    content: Array.from({ length: 500 }, (_, i) => ({ type: 'text', text: filler(80, i) })),
  });

const texts = (messages: readonly BaseMessage[]) => messages.map((m) => m.text);

/** What the model received on the call after the unfit turn, and what the thread stored. */
function expectNextPromptClean(prompt: readonly BaseMessage[], stored: readonly BaseMessage[]) {
  expect(texts(prompt).some((t) => t.trimStart().startsWith(UNFIT_STEP_PREFIX))).toBe(false);
  expect(texts(prompt).join('\n')).not.toContain(UNFIT_STEP_PREFIX);
  expect(texts(prompt).join('\n')).toContain(UNFIT_NOTICE);
  expect(texts(prompt).join('\n')).toContain('a shorter question');
  expect(stored.at(-1)!.text).toBe('answered');
}

describe('an unfit reply never reaches the model again (LangGraph)', () => {
  for (const mode of ['view', 'rewrite'] as const) {
    it(`batonMiddleware, ${mode} mode: the next turn's prompt has the unfit notice, not the stored reply`, async () => {
      const seen: BaseMessage[][] = [];
      const model = fakeModel();
      for (const reply of ['hello back', 'answered']) {
        model.respond((messages: BaseMessage[]) => {
          seen.push(messages);
          return new AIMessage(reply);
        });
      }
      const agent = createAgent({
        model,
        tools: [],
        middleware: [batonMiddleware({ contextWindow: WINDOW, mode })],
        checkpointer: new MemorySaver(),
        store: new InMemoryStore(),
      });
      const config = { configurable: { thread_id: `unfit-${mode}` } };
      await agent.invoke({ messages: [new HumanMessage('hello')] }, config);
      const unfit = await agent.invoke({ messages: [paste()] }, config);
      expect(unfit.messages.at(-1)!.text.startsWith(UNFIT_STEP_PREFIX)).toBe(true);
      expect(seen).toHaveLength(1);
      const next = await agent.invoke({ messages: [new HumanMessage('a shorter question')] }, config);
      expect(seen).toHaveLength(2);
      expectNextPromptClean(seen[1]!, next.messages);
      // View mode keeps the thread whole (users read the reply); rewrite mode stores what the model read.
      expect(texts(next.messages).join('\n').includes(UNFIT_STEP_PREFIX)).toBe(mode === 'view');
    });
  }

  it('createCompactionNode: the model node reads a state without the unfit reply, with the unfit notice', async () => {
    const seen: BaseMessage[][] = [];
    const replies = ['hello back', 'answered'];
    const callModel = async (state: { messages: BaseMessage[] }) => {
      seen.push(state.messages);
      return { messages: [new AIMessage(replies[seen.length - 1] ?? 'extra')] };
    };
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('compact', createCompactionNode({ contextWindow: WINDOW }))
      .addNode('model', callModel)
      .addEdge(START, 'compact')
      .addConditionalEdges('compact', routeAfterCompaction('model'), ['model', END])
      .addEdge('model', END)
      .compile({ checkpointer: new MemorySaver(), store: new InMemoryStore() });
    const config = { configurable: { thread_id: 'unfit-node' } };
    await graph.invoke({ messages: [new HumanMessage('hello')] }, config);
    const unfit = await graph.invoke({ messages: [paste()] }, config);
    expect(unfit.messages.at(-1)!.text.startsWith(UNFIT_STEP_PREFIX)).toBe(true);
    expect(seen).toHaveLength(1);
    const next = await graph.invoke({ messages: [new HumanMessage('a shorter question')] }, config);
    expect(seen).toHaveLength(2);
    expectNextPromptClean(seen[1]!, next.messages);
    // The thread is what the model node reads: the rewrite left the reply out.
    expect(texts(next.messages).join('\n')).not.toContain(UNFIT_STEP_PREFIX);
  });
});

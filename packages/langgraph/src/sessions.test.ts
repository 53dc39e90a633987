import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BatonSessionError, batonMiddleware, sessionIdOf } from './index.ts';

/** A fake model that records every prompt it is sent and answers from a script. */
function recording(replies: Array<(messages: BaseMessage[]) => AIMessage>) {
  const prompts: string[] = [];
  const model = fakeModel();
  for (const reply of replies) {
    model.respond((messages: BaseMessage[]) => {
      // Text and tool call arguments: everything the model reads.
      prompts.push(
        messages.map((m) => `${m.text}\n${JSON.stringify((m as AIMessage).tool_calls ?? [])}`).join('\n'),
      );
      return reply(messages);
    });
  }
  return { model, prompts };
}

const writeNote = (text: string) => () =>
  new AIMessage({
    content: '',
    tool_calls: [{ id: `n-${text}`, name: 'notes', args: { action: 'write', section: 'secret', text } }],
  });
const answer = (text: string) => () => new AIMessage(text);
/** The agent reads its notes with its own tool: the result shows what its session holds. */
const readNotes = (id: string) => () =>
  new AIMessage({
    content: '',
    tool_calls: [{ id: `r-${id}`, name: 'notes', args: { action: 'read' } }],
  });

describe('sessions at the LangGraph boundary', () => {
  it('gives two invocations without a thread_id sessions of their own: the second never sees the first one’s notes', async () => {
    const middleware = batonMiddleware({ contextWindow: 16_000 });
    const store = new InMemoryStore();
    const first = recording([
      writeNote('ALPHA-NOTE'),
      readNotes('alpha'),
      answer('noted'),
      readNotes('beta'),
      answer('second run'),
    ]);
    const agent = createAgent({ model: first.model, tools: [], middleware: [middleware], store });
    await agent.invoke({ messages: [new HumanMessage('remember ALPHA')] });
    // The writer's own next calls see it: its write, then its notes as the tool reads them.
    expect(first.prompts[1]).toContain('ALPHA-NOTE');
    expect(first.prompts[2]).toMatch(/### secret\\nALPHA-NOTE/);
    await agent.invoke({ messages: [new HumanMessage('an unrelated conversation')] });
    expect(first.prompts).toHaveLength(5);
    expect(first.prompts[3]).not.toContain('ALPHA-NOTE');
    expect(first.prompts[3]).toContain('an unrelated conversation');
    // Its own notes tool finds none of the first conversation's notes.
    expect(first.prompts[4]).toContain('(no notes yet)');
    expect(first.prompts[4]).not.toContain('ALPHA-NOTE');
  });

  it('isolates a sub-agent invoked from a tool on the same thread_id, unless sessionScope shares it', async () => {
    for (const sessionScope of ['namespace', 'thread'] as const) {
      const options = { contextWindow: 16_000, sessionScope };
      const inner = recording([writeNote('INNER-NOTE'), answer('inner done')]);
      const innerAgent = createAgent({
        model: inner.model,
        tools: [],
        middleware: [batonMiddleware(options)],
      });
      const delegate = tool(
        async ({ task }: { task: string }, config) => {
          const result = await innerAgent.invoke({ messages: [new HumanMessage(task)] }, config);
          return result.messages.at(-1)?.text ?? '';
        },
        { name: 'delegate', description: 'Hand a task to a helper', schema: z.object({ task: z.string() }) },
      );
      const outer = recording([
        () =>
          new AIMessage({
            content: '',
            tool_calls: [{ id: 'd1', name: 'delegate', args: { task: 'look around' } }],
          }),
        readNotes('outer'),
        answer('outer done'),
      ]);
      const agent = createAgent({
        model: outer.model,
        tools: [delegate],
        middleware: [batonMiddleware(options)],
        checkpointer: new MemorySaver(),
        store: new InMemoryStore(),
      });
      await agent.invoke(
        { messages: [new HumanMessage('outer task')] },
        { configurable: { thread_id: 'shared-thread' } },
      );
      expect(inner.prompts[1]).toContain('INNER-NOTE');
      // The outer agent reads its notes with its own tool: the sub-agent's only when shared.
      expect(outer.prompts[2]).toContain('"action":"read"');
      if (sessionScope === 'namespace') expect(outer.prompts[2]).not.toContain('INNER-NOTE');
      else expect(outer.prompts[2]).toContain('INNER-NOTE');
    }
  });

  it('names sessions by thread and graph namespace, and refuses a run it cannot tell apart', () => {
    expect(sessionIdOf({ threadId: 't1', namespace: 'model_request:abc' })).toBe('t1');
    expect(sessionIdOf({ threadId: 't1', namespace: 'tools:a1|model_request:b2' })).toBe('t1|tools:a1');
    expect(sessionIdOf({ threadId: 't1', namespace: 'tools:a1|model_request:b2' }, 'thread')).toBe('t1');
    expect(sessionIdOf({ messages: [{ id: 'm-1' }] })).toBe('run:m-1');
    expect(() => sessionIdOf({ messages: [{}] })).toThrow(BatonSessionError);
    expect(() => sessionIdOf({})).toThrow(/pass \{ configurable: \{ thread_id \} \}/);
    expect(() => batonMiddleware({ contextWindow: 16_000, sessionScope: 'global' as never })).toThrow(
      /sessionScope: expected 'namespace' or 'thread'/,
    );
  });
});

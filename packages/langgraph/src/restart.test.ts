import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonMiddleware } from './index.ts';

const page = (n: number) =>
  `page ${n}\n${n === 1 ? 'SECRET-PATH=/srv/keys/prod.pem\n' : ''}${Array.from({ length: 80 }, (_, i) => `log ${n}.${i} ok`).join('\n')}`;
const readLog = tool(async ({ n }: { n: number }) => page(n), {
  name: 'read_log',
  description: 'Read a log page',
  schema: z.object({ n: z.number() }),
});

/**
 * A new process: a new agent and a new middleware instance, but the thread's checkpointer and
 * the LangGraph store are the same persistent ones. Notes and recall must carry over.
 */
describe('restart mid-task', () => {
  it('a fresh agent on the same checkpointer and store sees the notes and recalls what the first one evicted', async () => {
    const checkpointer = new MemorySaver();
    const store = new InMemoryStore();
    const config = { configurable: { thread_id: 'restart' }, recursionLimit: 500 };

    const first = fakeModel();
    let step = 0;
    for (let i = 0; i < 30; i++) {
      first.respond(() => {
        const s = step++;
        if (s === 0)
          return new AIMessage({
            content: '',
            tool_calls: [
              {
                id: 'n0',
                name: 'notes',
                args: { action: 'write', section: 'plan', text: 'read 20 pages, then report the key path' },
                type: 'tool_call',
              },
            ],
          });
        if (s > 20) return new AIMessage('paused');
        return new AIMessage({
          content: '',
          tool_calls: [{ id: `r${s}`, name: 'read_log', args: { n: s }, type: 'tool_call' }],
        });
      });
    }
    const agentA = createAgent({
      model: first,
      tools: [readLog],
      middleware: [batonMiddleware({ contextWindow: 8_000 })],
      checkpointer,
      store,
    });
    await agentA.invoke({ messages: [new HumanMessage('Read the logs.')] }, config);

    let seen: BaseMessage[] = [];
    const second = fakeModel();
    second.respond((messages: BaseMessage[]) => {
      seen = messages;
      return new AIMessage({
        content: '',
        tool_calls: [{ id: 'q', name: 'recall', args: { query: 'SECRET-PATH' }, type: 'tool_call' }],
      });
    });
    second.respond(
      (messages: BaseMessage[]) =>
        new AIMessage(`key path: ${/SECRET-PATH=([^\\"]+)/.exec(messages.at(-1)!.text)?.[1]}`),
    );
    const agentB = createAgent({
      model: second,
      tools: [readLog],
      middleware: [batonMiddleware({ contextWindow: 8_000 })],
      checkpointer,
      store,
    });
    const result = await agentB.invoke(
      { messages: [new HumanMessage('Continue: where is the key?')] },
      config,
    );

    const system = seen
      .filter((m) => m.type === 'system')
      .map((m) => m.text)
      .join('\n');
    expect(system).toContain('### plan\nread 20 pages, then report the key path');
    expect(seen.map((m) => m.text).join('\n')).not.toContain('SECRET-PATH=/srv/keys/prod.pem');
    expect(result.messages.at(-1)!.text).toBe('key path: /srv/keys/prod.pem');
  });
});

/**
 * createAgent + batonMiddleware, offline: a scripted fakeModel() reads 40 log pages, keeps
 * its progress in Baton's notes, and recalls an evicted line at the end.
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-langchain-agent start
 */
import { batonMiddleware } from '@baton/langgraph';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { createAgent, fakeModel, tool } from 'langchain';
import { z } from 'zod';

const PAGES = 40;
const readLog = tool(
  async ({ page }: { page: number }) =>
    Array.from({ length: 50 }, (_, i) =>
      page === 7 && i === 20
        ? 'ERROR payment-gateway: retry storm after deploy 4f1e9ab'
        : `INFO request ${page * 100 + i} ok`,
    ).join('\n'),
  { name: 'read_log', description: 'Read one page of the logs', schema: z.object({ page: z.number() }) },
);

const model = fakeModel();
let step = 0;
for (let i = 0; i < 3 * PAGES; i++) {
  model.respond((messages: BaseMessage[]) => {
    const s = step++;
    const system = messages
      .filter((m) => m.type === 'system')
      .map((m) => m.text)
      .join('\n');
    const last = messages.at(-1)!;
    if (last.type === 'tool' && last.name === 'recall')
      return new AIMessage(`Root cause: ${/ERROR payment-gateway[^\\"]*/.exec(last.text)?.[0]}`);
    const read = Number(/pages read: (\d+)/.exec(system)?.[1] ?? 0);
    const call = (name: string, args: Record<string, unknown>) =>
      new AIMessage({ content: '', tool_calls: [{ id: `c${s}`, name, args, type: 'tool_call' }] });
    if (read >= PAGES) return call('recall', { query: 'ERROR payment-gateway' });
    if (last.type === 'tool' && last.name === 'read_log')
      return call('notes', { action: 'write', section: 'progress', text: `pages read: ${read + 1}` });
    return call('read_log', { page: read });
  });
}

const agent = createAgent({
  model,
  tools: [readLog],
  systemPrompt: 'You investigate incidents from logs.',
  middleware: [
    batonMiddleware({
      // With a real chat model the window and the output reservation come from it; a middleware
      // cannot lower the max_tokens it sends, so set maxTokens on the model to any reserveOutput
      // you give here: new ChatAnthropic({ model: 'claude-sonnet-4-5', maxTokens: 4_000 }).
      contextWindow: 8_000,
      onEvent: (e) => {
        if (e.type === 'stage-completed')
          console.log(`[baton] ${e.stage}: ${e.tokensBefore} -> ${e.tokensAfter} tokens`);
      },
    }),
  ],
  checkpointer: new MemorySaver(),
  store: new InMemoryStore(),
});

const result = await agent.invoke(
  { messages: [new HumanMessage('Find the cause of last night’s payment failures.')] },
  { configurable: { thread_id: 'incident-7' }, recursionLimit: 1_000 },
);
console.log(
  `\n${result.messages.length} messages in the thread (complete: view mode). Answer: ${result.messages.at(-1)!.text}`,
);

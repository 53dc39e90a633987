/**
 * A hand-built StateGraph with Baton's compaction node (rewrite mode), offline:
 *
 *   START -> compact -> model -> tools -> compact   (compact -> END when the turn is unfit)
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-langgraph-node start
 */
import { batonTools, createCompactionNode, routeAfterCompaction } from '@baton/langgraph';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';

const options = { contextWindow: 8_000 }; // one object for the node and the tools: they share sessions

const readFile = tool(
  async ({ n }: { n: number }) =>
    `file_${n}.ts\n${Array.from({ length: 60 }, (_, l) => `export const v${l} = ${n * l};`).join('\n')}`,
  {
    name: 'read_file',
    description: 'Read file n',
    schema: z.object({ n: z.number() }),
  },
);

/** Stands in for a chat model: reads 30 files, noting progress, then answers. */
let step = 0;
async function callModel(state: { messages: BaseMessage[] }) {
  const s = step++;
  const tokens = Math.round(JSON.stringify(state.messages).length / 4);
  console.log(
    `model call ${String(s).padStart(2)}: ${state.messages.length} messages in state (~${tokens} tokens)`,
  );
  if (s >= 30) return { messages: [new AIMessage('Read all 30 files.')] };
  return {
    messages: [
      new AIMessage({
        content: '',
        tool_calls: [{ id: `c${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
      }),
    ],
  };
}

const tools = [readFile, ...batonTools(options)];
const graph = new StateGraph(MessagesAnnotation)
  // What the model node sends besides the messages (a real one binds these tools), so the budget counts it.
  .addNode('compact', createCompactionNode(options, { systemPrompt: 'You read files.', tools }))
  .addNode('model', callModel)
  .addNode('tools', new ToolNode(tools))
  .addEdge(START, 'compact')
  .addConditionalEdges('compact', routeAfterCompaction('model'), ['model', END])
  .addConditionalEdges(
    'model',
    (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END),
    ['tools', END],
  )
  .addEdge('tools', 'compact')
  .compile({ checkpointer: new MemorySaver(), store: new InMemoryStore() });

const result = await graph.invoke(
  { messages: [new HumanMessage('Read the 30 files.')] },
  { configurable: { thread_id: 'files' }, recursionLimit: 500 },
);
console.log(
  `\nfinal state: ${result.messages.length} messages (rewritten by the compaction node); answer: ${result.messages.at(-1)!.text}`,
);

import { gptTokenizer, TokenCounter } from '@baton/core';
import { pairingViolation } from '@baton/core/internals';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  batonTools,
  CONTEXT_MESSAGE_ID,
  createCompactionNode,
  langGraphStore,
  routeAfterCompaction,
  toEntries,
} from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);
const body = (n: number) =>
  Array.from({ length: 60 }, (_, l) => `line ${l}: value_${(n * 31 + l) % 97}`).join('\n');

/** START -> compact -> model -> tools -> compact, the compaction routing to END when unfit. */
function loop(
  compact: ReturnType<typeof createCompactionNode>,
  callModel: (state: { messages: BaseMessage[] }) => Promise<{ messages: BaseMessage[] }>,
  tools: StructuredToolInterface[],
  store: InMemoryStore,
) {
  return new StateGraph(MessagesAnnotation)
    .addNode('compact', compact)
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
    .compile({ checkpointer: new MemorySaver(), store });
}

describe('createCompactionNode in a StateGraph (START -> compact -> model -> tools -> compact)', () => {
  it('keeps every model call within budget in rewrite mode, archives in the graph store, and shares notes with the tools', async () => {
    const options = { contextWindow: 8_000 };
    const readFile = tool(async ({ n }: { n: number }) => `file ${n}\n${body(n)}`, {
      name: 'read_file',
      description: 'Read file n',
      schema: z.object({ n: z.number() }),
    });
    const seen: BaseMessage[][] = [];
    let step = 0;
    const callModel = async (state: { messages: BaseMessage[] }) => {
      seen.push(state.messages);
      const s = step++;
      if (s === 2)
        return {
          messages: [
            new AIMessage({
              content: '',
              tool_calls: [
                {
                  id: `n${s}`,
                  name: 'notes',
                  args: { action: 'write', section: 'goal', text: 'read 30 files' },
                  type: 'tool_call',
                },
              ],
            }),
          ],
        };
      if (s >= 32) return { messages: [new AIMessage('done')] };
      return {
        messages: [
          new AIMessage({
            content: '',
            tool_calls: [{ id: `c${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
          }),
        ],
      };
    };
    const store = new InMemoryStore();
    const graph = loop(createCompactionNode(options), callModel, [readFile, ...batonTools(options)], store);

    const result = await graph.invoke(
      { messages: [new HumanMessage('Read the files.')] },
      { configurable: { thread_id: 'g1' }, recursionLimit: 500 },
    );
    expect(result.messages.at(-1)!.text).toBe('done');
    for (const messages of seen) {
      const entries = toEntries(messages);
      expect(entries.reduce((sum, e) => sum + counter.raw(e), 0)).toBeLessThanOrEqual(8_000 - 1_600);
      expect(pairingViolation(entries.filter((e) => e.role !== 'system'))).toBeUndefined();
    }
    // Rewrite mode: the state itself was compacted, and carries the notes block.
    expect(result.messages.length).toBeLessThan(1 + 32 * 2);
    const context = result.messages.find((m: BaseMessage) => m.id === CONTEXT_MESSAGE_ID);
    expect(context?.text).toContain('### goal\nread 30 files');
    // What left the state is in the LangGraph store, verbatim.
    const archived = await langGraphStore(store).searchArchive('g1', 'file 3\n', 10);
    expect(
      archived.some((r) => JSON.stringify(r.entry.parts).includes(JSON.stringify(body(3)).slice(1, -1))),
    ).toBe(true);
  });

  it('counts the model node’s system prompt and tool schemas when given them, so the whole request fits', async () => {
    const options = { contextWindow: 8_000 };
    const SYSTEM = `You read files. ${body(500).repeat(2)}`;
    const readFile = tool(async ({ n }: { n: number }) => `file ${n}\n${body(n)}`, {
      name: 'read_file',
      description: `Read file n. ${body(501)}`,
      schema: z.object({ n: z.number().describe(body(502)) }),
    });
    const tools = [readFile, ...batonTools(options)];
    const requests: number[] = [];
    let step = 0;
    const callModel = async (state: { messages: BaseMessage[] }) => {
      const entries = toEntries(state.messages);
      requests.push(entries.reduce((sum, e) => sum + counter.raw(e), 0));
      const s = step++;
      if (s >= 20) return { messages: [new AIMessage('done')] };
      return {
        messages: [
          new AIMessage({
            content: '',
            tool_calls: [{ id: `c${s}`, name: 'read_file', args: { n: s }, type: 'tool_call' }],
          }),
        ],
      };
    };
    const graph = loop(
      createCompactionNode(options, { systemPrompt: SYSTEM, tools }),
      callModel,
      tools,
      new InMemoryStore(),
    );
    await graph.invoke(
      { messages: [new HumanMessage('Read the files.')] },
      { configurable: { thread_id: 'g-schemas' }, recursionLimit: 500 },
    );
    const fixed =
      counter.rawText(SYSTEM) +
      counter.rawTools(
        tools.map((t) => ({ name: t.name, description: t.description, inputSchema: toJsonSchema(t.schema) })),
      );
    expect(fixed).toBeGreaterThan(2_000);
    for (const tokens of requests) expect(tokens + fixed).toBeLessThanOrEqual(8_000 - 1_600);
  });

  it('refuses a view mode it cannot honour', () => {
    expect(() => createCompactionNode({ contextWindow: 8_000, mode: 'view' } as never)).toThrow(
      /the compaction node always rewrites the state/,
    );
  });
});

import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { Memory } from '@mastra/memory';
import { LibSQLStore } from '@mastra/libsql';
import { z } from 'zod';

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };

// One scripted "turn" = the LanguageModelV2Content the model returns for one call.
type Turn = { content: any[]; finishReason: 'tool-calls' | 'stop' };
const script: Turn[] = [
  { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: JSON.stringify({ city: 'Paris' }) }], finishReason: 'tool-calls' },
  { content: [{ type: 'tool-call', toolCallId: 'call-2', toolName: 'weather', input: JSON.stringify({ city: 'Oslo' }) }], finishReason: 'tool-calls' },
  { content: [{ type: 'text', text: 'Paris is sunny, Oslo is cold.' }], finishReason: 'stop' },
];

// Same turn as a LanguageModelV2StreamPart sequence (for agent.stream -> doStream).
function toStream(turn: Turn) {
  const parts: any[] = [{ type: 'stream-start', warnings: [] }];
  for (const c of turn.content) {
    if (c.type === 'tool-call') parts.push(c); // {type:'tool-call', toolCallId, toolName, input: string}
    else { parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: c.text }, { type: 'text-end', id: 't' }); }
  }
  parts.push({ type: 'finish', finishReason: turn.finishReason, usage });
  return new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } });
}

function makeModel(prompts: any[]) {
  let i = 0;
  const next = (options: any) => { prompts.push(options.prompt); return script[Math.min(i++, script.length - 1)]; };
  return new MastraLanguageModelV2Mock({
    // agent.generate() calls doGenerate; agent.stream() calls doStream
    doGenerate: async (options: any) => { const t = next(options); return { content: t.content, finishReason: t.finishReason, usage, warnings: [] }; },
    doStream: async (options: any) => ({ stream: toStream(next(options)) }),
  });
}

const weather = createTool({
  id: 'weather',
  description: 'Get weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: city === 'Paris' ? 'sunny' : 'cold' }),
});

const memory = new Memory({ storage: new LibSQLStore({ id: 'q10', url: ':memory:' }), options: { lastMessages: 20 } });

for (const mode of ['generate', 'stream'] as const) {
  const prompts: any[] = [];
  const model = makeModel(prompts);
  const agent = new Agent({ id: 'q10-agent', name: 'q10', instructions: 'You are a weather bot.', model, tools: { weather }, memory });
  const threadId = `thread-${mode}`;
  const opts = { memory: { thread: threadId, resource: 'user-1' }, maxSteps: 5 };
  const res: any = mode === 'generate' ? await agent.generate('Weather in Paris and Oslo?', opts) : await agent.stream('Weather in Paris and Oslo?', opts);
  const text = await res.text;
  console.log(`=== ${mode}: text=${JSON.stringify(text)} finishReason=${await res.finishReason} steps=${(await res.steps).length}`);
  console.log('doGenerate calls', model.doGenerateCalls.length, 'doStream calls', model.doStreamCalls.length);
  prompts.forEach((p, k) => console.log(`--- prompt for call ${k + 1} ---\n` + JSON.stringify(p)));
  const { messages } = await memory.recall({ threadId, perPage: false });
  console.log('--- stored messages ---');
  for (const m of messages) console.log(m.id, m.role, JSON.stringify(m.content));
}

import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { MASTRA_THREAD_ID_KEY, MASTRA_RESOURCE_ID_KEY } from '@mastra/core/request-context';
import type { Processor } from '@mastra/core/processors';
import { Memory } from '@mastra/memory';
import { LibSQLStore } from '@mastra/libsql';
import { z } from 'zod';
import { makeModel, tc } from './common';

const log = (s: string) => console.log(s);
const weather = createTool({ id: 'weather', description: 'w', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, f: 'sunny' }) });
const recallTool = createTool({ id: 'recall_note', description: 'r', inputSchema: z.object({ key: z.string() }), execute: async ({ key }) => { log(`  >> recall_note EXECUTED key=${key}`); return { note: `value-of-${key}` }; } });

const states: Record<string, any> = {};
class Probe implements Processor {
  readonly id = 'probe';
  processInputStep(args: any) {
    const mm = args.requestContext?.get('MastraMemory');
    const ser = args.messageList.serialize();
    log(`processInputStep step=${args.stepNumber} agent=${!!args.agent}(${args.agent?.id}) ctxThreadKey=${args.requestContext?.get(MASTRA_THREAD_ID_KEY)} ctxResKey=${args.requestContext?.get(MASTRA_RESOURCE_ID_KEY)} MastraMemory.thread.id=${mm?.thread?.id} resourceId=${mm?.resourceId} serialize.memoryInfo=${JSON.stringify(ser.memoryInfo)} msg0.threadId=${args.messages[0]?.threadId} runId=${args.runId} retryCount=${args.retryCount} llmRequestStage=${args.llmRequestStage}`);
    log(`   tools in=${JSON.stringify(Object.keys(args.tools ?? {}))} rcKeys=${JSON.stringify([...(args.requestContext?.keys?.() ?? [])])}`);
    states.inputStep = args.state; args.state.count = ((args.state.count as number) ?? 0) + 1;
    // tagged system message replaced each step
    args.messageList.clearSystemMessages('baton');
    args.messageList.addSystem(`BATON step ${args.stepNumber}`, 'baton');
    return { tools: { ...args.tools, recall_note: recallTool } };
  }
  processLLMRequest(args: any) {
    log(`processLLMRequest step=${args.stepNumber} agent=${!!args.agent} sameState=${args.state === states.inputStep} count=${args.state.count} mm.thread=${args.requestContext?.get('MastraMemory')?.thread?.id} messageList=${!!args.messageList}`);
    log(`   system msgs in prompt: ${JSON.stringify(args.prompt.filter((m: any) => m.role === 'system').map((m: any) => m.content))}`);
    // transient replace: add a marker to prompt only
    return { prompt: [...args.prompt.slice(0, 1), { role: 'system', content: 'TRANSIENT-ONLY' }, ...args.prompt.slice(1)] };
  }
  processOutputStep(args: any) {
    log(`processOutputStep step=${args.stepNumber} sameState=${args.state === states.inputStep} usage=${JSON.stringify(args.usage)} finish=${args.finishReason} toolCalls=${JSON.stringify(args.toolCalls?.map((t: any) => t.toolName))} agent=${!!args.agent}`);
    return args.messageList;
  }
}
const probe = new Probe();
const memory = new Memory({ storage: new LibSQLStore({ id: 'q1', url: ':memory:' }), options: { lastMessages: 20 } });
for (const mode of ['generate', 'stream']) {
  const prompts: any[] = [];
  const model = makeModel([
    { content: [tc('c1', 'weather', { city: 'Paris' })], finishReason: 'tool-calls' },
    { content: [tc('c2', 'recall_note', { key: 'k1' })], finishReason: 'tool-calls' },
    { content: [{ type: 'text', text: 'done' }], finishReason: 'stop' },
  ], prompts, log);
  const agent = new Agent({ id: 'q1-agent', name: 'q1', instructions: 'INSTR', model, tools: { weather }, memory, inputProcessors: [probe], outputProcessors: [probe] });
  log(`===== ${mode}`);
  const o = { memory: { thread: `t-${mode}`, resource: 'u1' }, maxSteps: 5 };
  const r: any = mode === 'generate' ? await agent.generate('hi', o) : await agent.stream('hi', o);
  log(`text=${await r.text} usage=${JSON.stringify(await r.usage)}`);
  log(`prompt3 systems: ${JSON.stringify(prompts[2].filter((m: any) => m.role === 'system'))}`);
  log(`prompt3 tool msgs: ${JSON.stringify(prompts[2].filter((m: any) => m.role === 'tool').map((m:any)=>m.content[0].output))}`);
  const th = await memory.getThreadById({ threadId: `t-${mode}` });
  log(`thread: ${JSON.stringify(th)}`);
}

import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import type { Processor } from '@mastra/core/processors';
import { Memory } from '@mastra/memory';
import { LibSQLStore } from '@mastra/libsql';
// @ts-ignore
import { APICallError } from '/work/main/node_modules/.pnpm/@ai-sdk+provider@2.0.3/node_modules/@ai-sdk/provider/dist/index.mjs';
import { z } from 'zod';
import { makeModel, tc } from './common';
const log = (s: string) => console.log(s);
const weather = createTool({ id: 'weather', description: 'w', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => { log('  weather executed'); return { city }; } });
const api400 = () => new APICallError({ message: 'too long', url: 'x', requestBodyValues: {}, statusCode: 400, isRetryable: false });
const memory = new Memory({ storage: new LibSQLStore({ id: 'q6', url: ':memory:' }), options: { lastMessages: 20 } });

function abortIn(hook: string, atStep = 1): Processor {
  const p: any = { id: 'baton' };
  const fire = (a: any) => a.abort('context exhausted', { metadata: { outcome: 'unfit', hook, step: a.stepNumber } });
  p.processInputStep = (a: any) => { if (hook === 'processInputStep' && a.stepNumber === atStep) fire(a); };
  p.processLLMRequest = (a: any) => { if (hook === 'processLLMRequest' && a.stepNumber === atStep) fire(a); };
  p.processOutputStep = (a: any) => { if (hook === 'processOutputStep' && a.stepNumber === atStep) fire(a); return a.messageList; };
  p.processAPIError = (a: any) => { if (hook === 'processAPIError') fire(a); };
  p.processInput = (a: any) => { if (hook === 'processInput') fire(a); return a.messageList; };
  return p;
}
for (const hook of ['processInput', 'processInputStep', 'processLLMRequest', 'processOutputStep', 'processAPIError']) {
  for (const mode of ['generate', 'stream']) {
    log(`===== ${hook} / ${mode}`);
    const p = abortIn(hook);
    const script: any[] = hook === 'processAPIError'
      ? [{ throw: api400() }]
      : [{ content: [tc('c1', 'weather', { city: 'P' })], finishReason: 'tool-calls' }, { content: [tc('c2', 'weather', { city: 'Q' })], finishReason: 'tool-calls' }, { content: [{ type: 'text', text: 'end' }], finishReason: 'stop' }];
    const prompts: any[] = [];
    const agent = new Agent({ id: 'q6', name: 'q6', instructions: 'I', model: makeModel(script, prompts), tools: { weather }, memory, inputProcessors: [p as any], outputProcessors: [p as any], errorProcessors: [p as any] });
    const o = { memory: { thread: `t-${hook}-${mode}`, resource: 'u' }, maxSteps: 5, modelSettings: { maxRetries: 0 } };
    try {
      if (mode === 'generate') {
        const r: any = await agent.generate('hi', o);
        log(`  RESULT text=${JSON.stringify(r.text)} finishReason=${r.finishReason} tripwire=${JSON.stringify(r.tripwire)} steps=${r.steps.length}`);
      } else {
        const r: any = await agent.stream('hi', o);
        const chunks: any[] = [];
        for await (const ch of r.fullStream) chunks.push(ch);
        log(`  STREAM types=${chunks.map((c) => c.type).join(',')}`);
        const tw = chunks.find((c) => c.type === 'tripwire');
        log(`  tripwire chunk payload=${JSON.stringify(tw?.payload)}`);
        log(`  r.tripwire=${JSON.stringify(await r.tripwire)} finishReason=${await r.finishReason} text=${JSON.stringify(await r.text)}`);
      }
    } catch (e: any) { log(`  THREW ${e?.constructor?.name}: ${e?.message}`); }
    log(`  model calls=${prompts.length}`);
    const { messages } = await memory.recall({ threadId: `t-${hook}-${mode}`, perPage: false });
    log(`  stored: ${messages.map((m) => m.role + ':' + m.content.parts.map((pp: any) => pp.type).join('|')).join(' ; ')}`);
  }
}

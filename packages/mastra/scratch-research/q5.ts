import { Agent } from '@mastra/core/agent';
import type { Processor } from '@mastra/core/processors';
import { Memory } from '@mastra/memory';
import { LibSQLStore } from '@mastra/libsql';
// @ts-ignore
import { APICallError } from '/work/main/node_modules/.pnpm/@ai-sdk+provider@2.0.3/node_modules/@ai-sdk/provider/dist/index.mjs';
import { makeModel } from './common';

const log = (s: string) => console.log(s);
const api400 = () => new APICallError({ message: 'prompt is too long: 250000 tokens > 200000', url: 'x', requestBodyValues: {}, statusCode: 400, responseBody: '{"error":"context_length_exceeded"}', isRetryable: false });

function probe(retryPolicy: (n: number) => boolean) {
  const st: any = {};
  return {
    id: 'probe',
    processInputStep(a: any) { st.s = a.state; log(`  processInputStep step=${a.stepNumber} retryCount=${a.retryCount}`); },
    processLLMRequest(a: any) { log(`  processLLMRequest step=${a.stepNumber} retryCount=${a.retryCount} sameState=${a.state === st.s} msgs=${a.prompt.length}`); },
    processAPIError(a: any) {
      const e: any = a.error;
      log(`  processAPIError step=${a.stepNumber} retryCount=${a.retryCount} sameState=${a.state === st.s} errType=${e?.constructor?.name} isAPICallError=${APICallError.isInstance(e)} status=${e?.statusCode} msg=${String(e?.message).slice(0, 60)} agent=${!!a.agent}`);
      const r = retryPolicy(a.retryCount);
      if (r) a.messageList.addSystem('shrunk!', 'recovery');
      return r ? { retry: true } : undefined;
    },
  } satisfies Processor;
}
const memory = new Memory({ storage: new LibSQLStore({ id: 'q5', url: ':memory:' }), options: { lastMessages: 20 } });
const ok = { content: [{ type: 'text', text: 'recovered' }], finishReason: 'stop' } as const;

async function run(name: string, script: any[], p: any, opts: { mode?: 'generate' | 'stream'; asInput?: boolean; maxProcessorRetries?: number } = {}) {
  log(`===== ${name}`);
  const prompts: any[] = [];
  const model = makeModel(script, prompts, log);
  const agent = new Agent({ id: 'q5', name: 'q5', instructions: 'I', model, memory,
    ...(opts.asInput ? { inputProcessors: [p] } : { inputProcessors: [p], errorProcessors: [p] }),
    ...(opts.maxProcessorRetries !== undefined ? { maxProcessorRetries: opts.maxProcessorRetries } : {}) } as any);
  const o = { memory: { thread: `t-${name}`, resource: 'u' }, modelSettings: { maxRetries: 0 } };
  try {
    if ((opts.mode ?? 'generate') === 'generate') {
      const r: any = await agent.generate('hi', o);
      log(`  RESULT text=${JSON.stringify(r.text)} finishReason=${r.finishReason} error=${r.error?.message ?? r.error} tripwire=${JSON.stringify(r.tripwire)}`);
    } else {
      const r: any = await agent.stream('hi', o);
      const types: string[] = [];
      for await (const ch of r.fullStream) types.push(ch.type);
      log(`  STREAM chunks=${types.join(',')}`);
      log(`  text=${JSON.stringify(await r.text)} finishReason=${await r.finishReason} error=${(r.error as any)?.message}`);
    }
  } catch (e: any) { log(`  THREW ${e?.constructor?.name}: ${e?.message?.slice(0, 100)} isAPICallError=${APICallError.isInstance(e)}`); }
  log(`  model calls=${prompts.length}; last prompt systems=${JSON.stringify(prompts.at(-1)?.filter((m: any) => m.role === 'system').map((m: any) => m.content))}`);
}

await run('s1-400-retry-once', [{ throw: api400() }, ok], probe((n) => n < 1));
await run('s1b-400-retry-once-stream', [{ throw: api400() }, ok], probe((n) => n < 1), { mode: 'stream' });
await run('s2-errorpart-stream', [{ errorPart: { message: 'overloaded-in-stream' } }, ok], probe((n) => n < 1), { mode: 'stream' });
await run('s3-unhandled-generate', [{ throw: api400() }, ok], probe(() => false));
await run('s3b-unhandled-stream', [{ throw: api400() }, ok], probe(() => false), { mode: 'stream' });
await run('s4-always-retry-default-cap', [{ throw: api400() }], probe(() => true));
await run('s4b-always-retry-cap1', [{ throw: api400() }], probe(() => true), { maxProcessorRetries: 1 });
await run('s5-plain-error', [{ throw: new Error('plain boom') }, ok], probe((n) => n < 1));
await run('s6-only-inputProcessors', [{ throw: api400() }, ok], probe((n) => n < 1), { asInput: true });

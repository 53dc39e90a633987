import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
export const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
export type Turn = { content: any[]; finishReason: 'tool-calls' | 'stop' } | { throw: any } | { errorPart: any };
export function toStream(turn: any) {
  const parts: any[] = [{ type: 'stream-start', warnings: [] }];
  if (turn.errorPart) { parts.push({ type: 'error', error: turn.errorPart }); }
  else {
    for (const c of turn.content) {
      if (c.type === 'tool-call') parts.push(c);
      else parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: c.text }, { type: 'text-end', id: 't' });
    }
    parts.push({ type: 'finish', finishReason: turn.finishReason, usage });
  }
  return new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } });
}
export function makeModel(script: Turn[], prompts: any[], log?: (s: string) => void) {
  let i = 0;
  const next = (options: any) => { prompts.push(options.prompt); const t: any = script[Math.min(i++, script.length - 1)]; log?.(`MODEL CALL #${i} tools=${JSON.stringify(options.tools?.map((t: any) => t.name))}`); if (t.throw) throw t.throw; return t; };
  return new MastraLanguageModelV2Mock({
    doGenerate: async (options: any) => { const t = next(options); if (t.errorPart) return { content: [], finishReason: 'error', usage, warnings: [] } as any; return { content: t.content, finishReason: t.finishReason, usage, warnings: [] }; },
    doStream: async (options: any) => ({ stream: toStream(next(options)) }),
  });
}
export const tc = (id: string, toolName: string, input: any) => ({ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) });

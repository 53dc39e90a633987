import type { PromptMessage } from '@baton/core/internals';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { trailerOf } from './trailer.ts';

export { contextLengthError } from './context-length-error.ts';
export { filler } from './filler.ts';
export { conversationOf, isNoticesText, trailerOf } from './trailer.ts';

type DoStream = Extract<
  NonNullable<ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]['doStream']>,
  (...args: never[]) => unknown
>;
type CallOptions = Parameters<DoStream>[0];

/** What the scripted model decides at one call: tool calls, a final text, or an error thrown at the call. */
export type ScriptedTurn = { calls: Array<{ name: string; input: unknown }> } | { text: string } | Error;

export interface ScriptedCall {
  /** 0-based count of model calls so far (across runs of the same model). */
  call: number;
  prompt: PromptMessage[];
  /** Everything the model sees, as one string. */
  visible: string;
  /** The system messages' text. */
  system: string;
  /** Baton's notices: the last message when it is the trailing notices message, else ''. */
  trailer: string;
}

type DoGenerate = Extract<
  NonNullable<ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]['doGenerate']>,
  (...args: never[]) => unknown
>;

interface StepReply {
  content: Array<Record<string, unknown>>;
  finishReason: 'stop' | 'tool-calls';
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/**
 * Mastra's own `MastraLanguageModelV2Mock` driven by a script over exactly the prompt it is
 * sent (`generate` calls `doGenerate`, `stream` calls `doStream`; both are scripted). Reports
 * usage as the prompt's characters / 4, so calibration has numbers.
 */
export function scriptedModel(script: (call: ScriptedCall) => ScriptedTurn) {
  const calls: ScriptedCall[] = [];
  const reply = (options: CallOptions): StepReply => {
    const prompt = options.prompt as unknown as PromptMessage[];
    const visible = JSON.stringify(prompt);
    const system = prompt
      .filter((m) => m.role === 'system')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n\n');
    const call: ScriptedCall = { call: calls.length, prompt, visible, system, trailer: trailerOf(prompt) };
    calls.push(call);
    const turn = script(call);
    if (turn instanceof Error) throw turn;
    const inputTokens = Math.ceil(visible.length / 4);
    return {
      content:
        'text' in turn
          ? [{ type: 'text', text: turn.text }]
          : turn.calls.map((c, i) => ({
              type: 'tool-call',
              toolCallId: `call_${call.call}_${i}`,
              toolName: c.name,
              input: JSON.stringify(c.input),
            })),
      finishReason: 'text' in turn ? 'stop' : 'tool-calls',
      usage: { inputTokens, outputTokens: 10, totalTokens: inputTokens + 10 },
    };
  };
  const doGenerate = (async (options: CallOptions) => ({
    ...reply(options),
    warnings: [],
  })) as unknown as DoGenerate;
  const doStream = (async (options: CallOptions) => {
    const { content, finishReason, usage } = reply(options);
    const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
    for (const c of content) {
      if (c.type === 'text')
        parts.push(
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: c.text },
          { type: 'text-end', id: 't' },
        );
      else parts.push(c);
    }
    parts.push({ type: 'finish', finishReason, usage });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }) as unknown as DoStream;
  return { model: new MastraLanguageModelV2Mock({ doGenerate, doStream }), calls };
}

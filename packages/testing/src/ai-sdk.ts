import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { trailerOf } from './trailer.ts';

export { contextLengthError } from './context-length-error.ts';
export { filler } from './filler.ts';
export { conversationOf, isNoticesText, trailerOf } from './trailer.ts';

/** What the scripted model decides at one call: tool calls or a final text. */
export type ScriptedTurn = { calls: Array<{ name: string; input: unknown }> } | { text: string };

export interface ScriptedCall {
  step: number;
  prompt: LanguageModelV4Prompt;
  /** Everything the model sees, as one string. */
  visible: string;
  system: string;
  /** Baton's notices: the last message when it is the trailing notices message, else ''. */
  trailer: string;
}

/**
 * A MockLanguageModelV4 (from `ai/test`) driven by a script over exactly the prompt it is
 * sent. Reports usage as the characters / 4 of what a provider bills as input, the prompt and
 * the tool definitions, so calibration has numbers.
 */
export function scriptedModel(script: (call: ScriptedCall) => ScriptedTurn | Error) {
  const prompts: LanguageModelV4Prompt[] = [];
  /** The input tokens reported for each call: what this provider bills. */
  const usages: number[] = [];
  let step = 0;
  const generate = async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
    prompts.push(options.prompt);
    const system = options.prompt
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const visible = JSON.stringify(options.prompt);
    const trailer = trailerOf(options.prompt);
    const turn = script({ step: step++, prompt: options.prompt, visible, system, trailer });
    if (turn instanceof Error) throw turn;
    const content: LanguageModelV4Content[] =
      'text' in turn
        ? [{ type: 'text', text: turn.text }]
        : turn.calls.map((call, i) => ({
            type: 'tool-call',
            toolCallId: `call_${step}_${i}`,
            toolName: call.name,
            input: JSON.stringify(call.input),
          }));
    const billed = Math.ceil((visible.length + JSON.stringify(options.tools ?? []).length) / 4);
    usages.push(billed);
    return {
      content,
      finishReason: { unified: 'text' in turn ? 'stop' : 'tool-calls', raw: undefined },
      usage: {
        inputTokens: {
          total: billed,
          noCache: undefined,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: 10, text: 10, reasoning: undefined },
      },
      warnings: [],
    };
  };
  const model = new MockLanguageModelV4({
    doGenerate: generate,
    doStream: async (options) => {
      const result = await generate(options);
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start' as const, warnings: [] },
        ...result.content.flatMap((c) =>
          c.type === 'text'
            ? ([
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: c.text },
                { type: 'text-end', id: 't' },
              ] satisfies LanguageModelV4StreamPart[])
            : [c as LanguageModelV4StreamPart],
        ),
        { type: 'finish' as const, usage: result.usage, finishReason: result.finishReason },
      ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, prompts, usages };
}

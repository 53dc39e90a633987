import type { LanguageModelV4 } from '@ai-sdk/provider';
import { corpusAgent } from '@baton/test-support/corpus-agent.ts';
import type { Transcript } from '@baton/test-support/transcripts.ts';
import {
  type ProviderWire,
  type ProviderWireOptions,
  providerRuleViolations,
  type WireFormat,
  type WireRequest,
} from '@baton/testing';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { type BatonEvent, createBaton } from './index.ts';

/** What one corpus conversation did through a provider package and its wire stub. */
export interface WireLoopResult {
  requests: number;
  refused: number;
  /** Turns that threw, or ended on Baton's unfit answer instead of the script's final text. */
  failedTurns: string[];
  violations: string[];
  /** Accepted requests whose input + requested output exceeded the window (the stub's own count). */
  overWindow: number;
  /** The largest input + requested output of an accepted request. */
  peak: number;
  compactions: number;
  scripted: { answered: number; total: number };
  ms: number;
  /** Every request the provider accepted, as the provider package sent it (for billing them). */
  accepted: WireRequest[];
}

/**
 * Replays a corpus conversation as an agent loop through a real AI SDK provider package
 * (`model`, built on `wire.fetch`) wrapped in Baton's middleware: one `generateText` or
 * `streamText` per user turn, the corpus' tool calls scripted at the wire, their recorded
 * outputs returned by the host's tools.
 */
export async function runWireLoop(options: {
  transcript: Transcript;
  /** The stub, from the loop's script and the window. */
  wire: (options: ProviderWireOptions) => ProviderWire;
  /** The provider package's model, on the stub's fetch. */
  model: (fetch: ProviderWire['fetch']) => LanguageModelV4;
  format: WireFormat;
  contextWindow: number;
  maxOutputTokens: number;
  stream: boolean;
  maxTurns?: number;
  maxSteps?: number;
}): Promise<WireLoopResult> {
  const started = performance.now();
  const { contextWindow, maxOutputTokens } = options;
  const agent = corpusAgent(options.transcript.messages, {
    ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
    ...(options.maxSteps !== undefined && { maxSteps: options.maxSteps }),
  });
  const wire = options.wire({ script: agent.script, contextWindow });
  const events: BatonEvent[] = [];
  const baton = createBaton({ contextWindow, onEvent: (e) => events.push(e) });
  const session = baton.session(options.transcript.name);
  const model = wrapLanguageModel({ model: options.model(wire.fetch), middleware: session.middleware });
  const tools: ToolSet = Object.fromEntries(
    agent.toolNames.map((name) => [
      name,
      tool({
        description: `The ${name} tool of the recorded agent`,
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
        execute: async (input) => agent.runTool(name, input),
      }),
    ]),
  );
  const messages: ModelMessage[] = [];
  const failedTurns: string[] = [];
  for (const [n, turn] of agent.turns.entries()) {
    for (const text of turn.user) messages.push({ role: 'user', content: text });
    const call = {
      model,
      ...(agent.system !== undefined && { system: agent.system }),
      messages,
      tools,
      maxOutputTokens,
      stopWhen: stepCountIs(turn.steps.length + 1),
    };
    try {
      let streamError: unknown;
      const result = options.stream
        ? streamText({ ...call, onError: ({ error }) => (streamError ??= error) })
        : await generateText(call);
      const text = await result.text;
      if (streamError) throw streamError;
      if (text !== turn.final) failedTurns.push(`turn ${n}: answered ${JSON.stringify(text.slice(0, 120))}`);
      messages.push(...(await result.response).messages);
    } catch (error) {
      failedTurns.push(`turn ${n}: ${error instanceof Error ? error.message : String(error)}`);
      return finish();
    }
  }
  return finish();

  function finish(): WireLoopResult {
    const accepted = wire.requests.filter((r) => !r.refused);
    return {
      requests: wire.requests.length,
      refused: wire.requests.length - accepted.length,
      failedTurns,
      violations: wire.requests.flatMap((r) =>
        providerRuleViolations(options.format, r.body).map((v) => `request ${r.index}: ${v}`),
      ),
      overWindow: accepted.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > contextWindow).length,
      peak: Math.max(0, ...accepted.map((r) => r.inputTokens + (r.maxOutputTokens ?? 0))),
      compactions: events.filter((e) => e.type === 'stage-completed').length,
      scripted: agent.progress(),
      ms: Math.round(performance.now() - started),
      accepted,
    };
  }
}

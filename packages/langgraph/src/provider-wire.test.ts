import { corpusAgent } from '@baton/test-support/corpus-agent.ts';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import {
  anthropicWire,
  openaiChatWire,
  openaiResponsesWire,
  type ProviderWire,
  type ProviderWireOptions,
  providerRuleViolations,
  type WireFormat,
} from '@baton/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore, MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonMiddleware } from './index.ts';

const MAX_TOKENS = 2048;
type Fetch = ProviderWire['fetch'];

const providers: Array<{
  name: string;
  format: WireFormat;
  wire: (options: ProviderWireOptions) => ProviderWire;
  model: (fetch: Fetch) => BaseChatModel;
}> = [
  {
    name: '@langchain/anthropic',
    format: 'anthropic',
    wire: anthropicWire,
    model: (fetch) =>
      new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'test-key',
        maxTokens: MAX_TOKENS,
        clientOptions: { fetch },
      }),
  },
  {
    name: '@langchain/openai chat',
    format: 'openai-chat',
    wire: openaiChatWire,
    model: (fetch) =>
      new ChatOpenAI({
        model: 'gpt-4o',
        apiKey: 'test-key',
        maxTokens: MAX_TOKENS,
        configuration: { fetch },
      }),
  },
  {
    name: '@langchain/openai responses',
    format: 'openai-responses',
    wire: openaiResponsesWire,
    model: (fetch) =>
      new ChatOpenAI({
        model: 'gpt-4o',
        apiKey: 'test-key',
        maxTokens: MAX_TOKENS,
        useResponsesApi: true,
        configuration: { fetch },
      }),
  },
];

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  'LangChain provider packages through their wire formats: createAgent + batonMiddleware on a Claude Code session',
  () => {
    // Claude Code on a Go module: 5 user turns, 29 tool steps, outgrows both windows.
    const transcript = loadReplayCorpus().find((t) => t.name === 'coding-claude-code-gomod')!;
    for (const provider of providers)
      for (const contextWindow of [16_000, 32_000])
        it(`${provider.name} at ${contextWindow / 1000}k`, async () => {
          const agent = corpusAgent(transcript.messages);
          const wire = provider.wire({ script: agent.script, contextWindow });
          const events: BatonEvent[] = [];
          const tools = agent.toolNames.map((name) =>
            tool(async (input: Record<string, unknown>) => agent.runTool(name, input), {
              name,
              description: `The ${name} tool of the recorded agent`,
              schema: z.looseObject({}),
            }),
          );
          const graph = createAgent({
            model: provider.model(wire.fetch),
            tools,
            middleware: [batonMiddleware({ contextWindow, onEvent: (e) => events.push(e) })],
            checkpointer: new MemorySaver(),
            store: new InMemoryStore(),
            ...(agent.system !== undefined && { systemPrompt: agent.system }),
          });
          const config = { configurable: { thread_id: transcript.name }, recursionLimit: 500 };
          const failedTurns: string[] = [];
          for (const [n, turn] of agent.turns.entries()) {
            try {
              const state = await graph.invoke(
                { messages: turn.user.map((u) => new HumanMessage(u)) },
                config,
              );
              const last = state.messages.at(-1);
              const text = last instanceof AIMessage ? last.text : '';
              if (text !== turn.final)
                failedTurns.push(`turn ${n}: answered ${JSON.stringify(text.slice(0, 120))}`);
            } catch (error) {
              failedTurns.push(`turn ${n}: ${error instanceof Error ? error.message : String(error)}`);
              break;
            }
          }
          const accepted = wire.requests.filter((r) => !r.refused);
          expect(failedTurns).toEqual([]);
          expect(wire.requests.flatMap((r) => providerRuleViolations(provider.format, r.body))).toEqual([]);
          expect(accepted.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > contextWindow)).toEqual(
            [],
          );
          expect(accepted.every((r) => r.maxOutputTokens === MAX_TOKENS)).toBe(true);
          expect(agent.progress().answered).toBe(agent.progress().total);
          expect(events.filter((e) => e.type === 'stage-completed').length).toBeGreaterThan(0);
        });
  },
);

import { createAnthropic } from '@ai-sdk/anthropic';
import { corpusAgent } from '@baton/test-support/corpus-agent.ts';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_MISSING, corpusAvailable, loadReplayCorpus } from '@baton/test-support/transcripts.ts';
import { anthropicWire, providerRuleViolations } from '@baton/testing';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonProcessor } from './index.ts';

const MAX_OUTPUT_TOKENS = 2048;

describe.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
  'a Mastra Agent on @ai-sdk/anthropic through the Messages wire format: a Claude Code session',
  () => {
    // Claude Code on a Go module: 5 user turns, 29 tool steps, outgrows both windows.
    const transcript = loadReplayCorpus().find((t) => t.name === 'coding-claude-code-gomod')!;
    for (const contextWindow of [16_000, 32_000])
      it(`at ${contextWindow / 1000}k`, async () => {
        const agent = corpusAgent(transcript.messages);
        const wire = anthropicWire({ script: agent.script, contextWindow });
        const events: BatonEvent[] = [];
        const memory = new Memory({
          storage: new LibSQLStore({ id: `wire-${contextWindow}`, url: ':memory:' }),
        });
        const baton = batonProcessor({ contextWindow, memory, onEvent: (e) => events.push(e) });
        const tools = Object.fromEntries(
          agent.toolNames.map((name) => [
            name,
            createTool({
              id: name,
              description: `The ${name} tool of the recorded agent`,
              inputSchema: z.looseObject({}),
              execute: async (input) => agent.runTool(name, input),
            }),
          ]),
        );
        const mastra = new Agent({
          id: 'replay',
          name: 'replay',
          instructions: agent.system ?? 'You are a coding agent.',
          // Mastra 1.71 types its V4 model with doGenerate returning a stream result, so the AI SDK's
          // own LanguageModelV4 does not type-check against it; at run time Mastra takes it as is.
          model: createAnthropic({ apiKey: 'test-key', fetch: wire.fetch })('claude-sonnet-4-5') as never,
          tools,
          memory,
          ...baton.lists,
        });
        const failedTurns: string[] = [];
        for (const [n, turn] of agent.turns.entries()) {
          try {
            const result = await mastra.generate(turn.user, {
              memory: { thread: transcript.name, resource: 'user' },
              maxSteps: turn.steps.length + 1,
              modelSettings: { maxOutputTokens: MAX_OUTPUT_TOKENS },
            });
            // result.text joins every step's text; the turn's answer is the last step's.
            const answer = result.steps.at(-1)?.text ?? '';
            if (answer !== turn.final)
              failedTurns.push(`turn ${n}: answered ${JSON.stringify(answer.slice(0, 120))}`);
          } catch (error) {
            failedTurns.push(`turn ${n}: ${error instanceof Error ? error.message : String(error)}`);
            break;
          }
        }
        const accepted = wire.requests.filter((r) => !r.refused);
        expect(failedTurns).toEqual([]);
        expect(wire.requests.flatMap((r) => providerRuleViolations('anthropic', r.body))).toEqual([]);
        expect(accepted.filter((r) => r.inputTokens + (r.maxOutputTokens ?? 0) > contextWindow)).toEqual([]);
        expect(accepted.every((r) => r.maxOutputTokens === MAX_OUTPUT_TOKENS)).toBe(true);
        expect(agent.progress().answered).toBe(agent.progress().total);
        expect(events.filter((e) => e.type === 'stage-completed').length).toBeGreaterThan(0);
      });
  },
);

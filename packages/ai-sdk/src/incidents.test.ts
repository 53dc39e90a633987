import {
  INCIDENT_FACT,
  logPage,
  SKILL,
  shardDump,
  skillAgentTurn,
  skillStepOutput,
} from '@baton/test-support/incidents.ts';
import { scriptedModel, trailerOf } from '@baton/testing/ai-sdk';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton } from './index.ts';

/** The core's incident scenarios, re-run through the real SDK loop. */
describe('incidents through generateText', () => {
  async function skillRun(pinnedTools: string[]) {
    const baton = createBaton({ contextWindow: 6_000, pinnedTools });
    const session = baton.session('skill');
    let loads = 0;
    const { model } = scriptedModel(skillAgentTurn);

    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: {
        ...session.tools,
        load_skill: tool({
          inputSchema: z.object({ name: z.string() }),
          execute: async () => {
            loads++;
            return SKILL;
          },
        }),
        run_step: tool({
          inputSchema: z.object({ n: z.number() }),
          execute: async ({ n }) => skillStepOutput(n),
        }),
      },
      stopWhen: stepCountIs(150),
      prompt: 'Deploy the service using the deploy-v2 skill.',
    });
    return { loads, text: result.text };
  }

  it('skill reload loop: pinned, the skill loads once and the agent finishes; unpinned, it reloads again and again', async () => {
    const pinned = await skillRun(['load_skill']);
    expect(pinned.loads).toBe(1);
    expect(pinned.text).toBe('deployed after 30 steps');
    const unpinned = await skillRun([]);
    expect(unpinned.loads).toBeGreaterThan(5);
  });

  it('unfit batch: four huge fresh results become previews the model can page through; beyond that, a graceful unfit step', async () => {
    const baton = createBaton({ model: 'gpt-4o' });
    const session = baton.session('batch');
    const dump = shardDump;
    const { model, prompts } = scriptedModel(({ step, trailer }) => {
      if (step === 0)
        return { calls: [0, 1, 2, 3].map((i) => ({ name: 'fetch_shard', input: { shard: i } })) };
      if (step === 1) {
        const ref = /recall\(\{ "ref": "([^"]+)", "offset": 0/.exec(trailer)?.[1];
        return { calls: [{ name: 'recall', input: { ref, offset: 100, limit: 50 } }] };
      }
      return { text: 'found it' };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: {
        ...session.tools,
        fetch_shard: tool({
          inputSchema: z.object({ shard: z.number() }),
          execute: async ({ shard }) => dump(shard).repeat(6),
        }),
      },
      stopWhen: stepCountIs(5),
      prompt: 'Fetch the four shards.',
    });
    // The degrade notice is the last message of the next call, after the conversation.
    const second = trailerOf(prompts[1]!);
    expect(second).toMatch(
      /4 tool results were too large for the context window and are shown as head\/tail previews/,
    );
    const recalled = result.steps[1]!.toolResults[0]!.output as { content: string };
    expect(recalled.content).toBe(dump(0).repeat(6).slice(100, 150));
    expect(result.text).toBe('found it');

    const tiny = createBaton({ contextWindow: 4_000, pinnedTools: ['fetch_shard'] }).session('tiny');
    const blocked = await generateText({
      model: wrapLanguageModel({
        model: scriptedModel(({ step }) =>
          step === 0 ? { calls: [{ name: 'fetch_shard', input: { shard: 1 } }] } : { text: 'x' },
        ).model,
        middleware: tiny.middleware,
      }),
      tools: {
        fetch_shard: tool({
          inputSchema: z.object({ shard: z.number() }),
          execute: async ({ shard }) => dump(shard),
        }),
      },
      stopWhen: stepCountIs(5),
      prompt: 'Fetch shard 1.',
    });
    expect(blocked.finishReason).toBe('other');
    expect(blocked.text).toMatch(/checkpoint/);
    expect(blocked.providerMetadata?.baton).toMatchObject({
      outcome: 'unfit',
      reason: expect.stringMatching(/pinned tool fetch_shard/),
    });
  });

  it('recall after eviction: the model reads the notice, recalls the evicted fact verbatim and answers with it', async () => {
    const FACT = INCIDENT_FACT;
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('recall');
    let evictedAt = -1;
    const { model } = scriptedModel(({ step, trailer, visible, prompt }) => {
      if (evictedAt < 0 && trailer.includes('Context was compacted')) {
        evictedAt = step;
        expect(visible).not.toContain(FACT);
        return { calls: [{ name: 'recall', input: { query: 'INC-88213' } }] };
      }
      if (evictedAt >= 0) {
        // The recall result: the last message, or the one before Baton's trailing notices.
        const last = JSON.stringify(prompt.at(trailer ? -2 : -1));
        return { text: `root cause: ${/INC-\d+ traced to commit \w+/.exec(last)?.[0] ?? 'unknown'}` };
      }
      return { calls: [{ name: 'search_logs', input: { page: step } }] };
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: {
        ...session.tools,
        search_logs: tool({
          inputSchema: z.object({ page: z.number() }),
          execute: async ({ page }) => logPage(page),
        }),
      },
      stopWhen: stepCountIs(40),
      prompt: 'Find the root cause.',
    });
    expect(evictedAt).toBeGreaterThan(0);
    expect(result.text).toBe(`root cause: ${FACT}`);
  });
});

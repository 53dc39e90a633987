import {
  INCIDENT_FACT,
  logPage,
  SKILL,
  shardDump,
  skillAgentTurn,
  skillStepOutput,
} from '@baton/test-support/incidents.ts';
import { scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type BatonTripwireMetadata, batonProcessor } from './index.ts';

/** The core's incident scenarios, re-run through a real Mastra Agent loop. */
describe('incidents through Agent.generate', () => {
  async function skillRun(pinnedTools: string[]) {
    const baton = batonProcessor({ contextWindow: 6_000, pinnedTools });
    let loads = 0;
    const { model } = scriptedModel(skillAgentTurn);

    const agent = new Agent({
      id: 'deployer',
      name: 'deployer',
      instructions: 'Deploy services.',
      model,
      tools: {
        load_skill: createTool({
          id: 'load_skill',
          description: 'Load a skill',
          inputSchema: z.object({ name: z.string() }),
          execute: async () => {
            loads++;
            return SKILL;
          },
        }),
        run_step: createTool({
          id: 'run_step',
          description: 'Run one step',
          inputSchema: z.object({ n: z.number() }),
          execute: async ({ n }) => skillStepOutput(n),
        }),
      },
      ...baton.lists,
    });
    const result = await agent.generate('Deploy the service using the deploy-v2 skill.', { maxSteps: 150 });
    return { loads, text: result.text };
  }

  it('skill reload loop: pinned, the skill loads once and the agent finishes; unpinned, it reloads again and again', async () => {
    const pinned = await skillRun(['load_skill']);
    expect(pinned.loads).toBe(1);
    expect(pinned.text).toBe('deployed after 30 steps');
    const unpinned = await skillRun([]);
    expect(unpinned.loads).toBeGreaterThan(5);
  }, 60_000);

  const dump = shardDump;
  const fetchShard = (size: (shard: number) => string) =>
    createTool({
      id: 'fetch_shard',
      description: 'Fetch one shard',
      inputSchema: z.object({ shard: z.number() }),
      execute: async ({ shard }) => size(shard),
    });

  it('unfit batch: four huge fresh results become previews the model can page through; beyond that, a plain-words reply, no exception, no error log', async () => {
    const baton = batonProcessor({ model: 'gpt-4o' });
    let recalled: unknown;
    const { model, calls } = scriptedModel(({ call, trailer, prompt }) => {
      if (call === 0)
        return { calls: [0, 1, 2, 3].map((i) => ({ name: 'fetch_shard', input: { shard: i } })) };
      if (call === 1) {
        const ref = /recall\(\{ "ref": "([^"]+)", "offset": 0/.exec(trailer)?.[1];
        return { calls: [{ name: 'recall', input: { ref, offset: 100, limit: 50 } }] };
      }
      recalled = JSON.stringify(prompt.at(trailer ? -2 : -1));
      return { text: 'found it' };
    });
    const agent = new Agent({
      id: 'shards',
      name: 'shards',
      instructions: 'Fetch data.',
      model,
      tools: { fetch_shard: fetchShard((shard) => dump(shard).repeat(6)) },
      ...baton.lists,
    });
    const result = await agent.generate('Fetch the four shards.', { maxSteps: 5 });
    expect(calls[1]!.trailer).toMatch(
      /4 tool results were too large for the context window and are shown as head\/tail previews/,
    );
    expect(recalled).toContain(JSON.stringify(dump(0).repeat(6).slice(100, 150)).slice(1, -1));
    expect(result.text).toBe('found it');

    // Beyond that: the run ends with a plain-words reply, no exception and no error log.
    for (const unfitAs of ['reply', 'tripwire'] as const) {
      const tiny = batonProcessor({ contextWindow: 4_000, pinnedTools: ['fetch_shard'], unfitAs });
      const blocked = new Agent({
        id: 'tiny',
        name: 'tiny',
        instructions: 'Fetch data.',
        model: scriptedModel(({ call }) =>
          call === 0 ? { calls: [{ name: 'fetch_shard', input: { shard: 1 } }] } : { text: 'x' },
        ).model,
        tools: { fetch_shard: fetchShard(dump) },
        ...tiny.lists,
      });
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
      const ended = await blocked.generate('Fetch shard 1.', { maxSteps: 5 });
      const errorLogs = logged.mock.calls.map((call) => call.join(' '));
      logged.mockRestore();
      const unfit = tiny.unfitOf(ended);
      expect(unfit).toMatchObject({
        outcome: 'unfit',
        reason: expect.stringMatching(/pinned tool fetch_shard/),
      });
      expect(unfit!.sessionId).toMatch(/^run:/);
      expect(await tiny.session(unfit!.sessionId).readCheckpoint(unfit!.checkpointRef)).toMatchObject({
        reason: expect.any(String),
      });
      if (unfitAs === 'reply') {
        expect(ended.tripwire).toBeUndefined();
        expect(ended.finishReason).toBe('stop');
        expect(ended.text).toMatch(/no longer fits.*Send a shorter message/s);
        expect(errorLogs).toEqual([]);
      } else {
        expect(ended.tripwire).toMatchObject({
          processorId: 'baton',
          metadata: unfit as BatonTripwireMetadata,
        });
        // Mastra's own logging of a tripwire after the model step: why 'reply' is the default.
        expect(errorLogs.join('\n')).toMatch(/Error executing step/);
      }
    }
    // A run that fit reports nothing.
    expect(baton.unfitOf(result)).toBeUndefined();
  });

  it('recall after eviction: the model reads the notice, recalls the evicted fact verbatim and answers with it', async () => {
    const FACT = INCIDENT_FACT;
    const baton = batonProcessor({ contextWindow: 8_000 });
    let evictedAt = -1;
    const { model } = scriptedModel(({ call, trailer, visible, prompt }) => {
      if (evictedAt < 0 && trailer.includes('Context was compacted')) {
        evictedAt = call;
        expect(visible).not.toContain(FACT);
        return { calls: [{ name: 'recall', input: { query: 'INC-88213' } }] };
      }
      if (evictedAt >= 0) {
        const last = JSON.stringify(prompt.at(trailer ? -2 : -1));
        return { text: `root cause: ${/INC-\d+ traced to commit \w+/.exec(last)?.[0] ?? 'unknown'}` };
      }
      return { calls: [{ name: 'search_logs', input: { page: call } }] };
    });
    const agent = new Agent({
      id: 'oncall',
      name: 'oncall',
      instructions: 'Investigate incidents.',
      model,
      tools: {
        search_logs: createTool({
          id: 'search_logs',
          description: 'Search the logs',
          inputSchema: z.object({ page: z.number() }),
          execute: async ({ page }) => logPage(page),
        }),
      },
      ...baton.lists,
    });
    const result = await agent.generate('Find the root cause.', { maxSteps: 40 });
    expect(evictedAt).toBeGreaterThan(0);
    expect(result.text).toBe(`root cause: ${FACT}`);
  });
});

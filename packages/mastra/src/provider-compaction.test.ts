import { createAnthropic } from '@ai-sdk/anthropic';
import { anthropicWire } from '@baton/testing';
import { Agent } from '@mastra/core/agent';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { type BatonEvent, batonProcessor } from './index.ts';

describe('Mastra with the provider compacting too', () => {
  it("tells once per thread that the step's providerOptions turn on Anthropic's own compaction", async () => {
    const wire = anthropicWire({
      contextWindow: 200_000,
      script: ({ index }) => ({ text: `answer ${index}` }),
    });
    const events: BatonEvent[] = [];
    const memory = new Memory({ storage: new LibSQLStore({ id: 'provider-compaction', url: ':memory:' }) });
    const baton = batonProcessor({ memory, onEvent: (e) => events.push(e) });
    const agent = new Agent({
      id: 'chat',
      name: 'chat',
      instructions: 'Answer briefly.',
      // Mastra 1.71 types V4 models apart from the AI SDK's own (see provider-wire.test.ts).
      model: createAnthropic({ apiKey: 'test-key', fetch: wire.fetch })('claude-sonnet-4-5') as never,
      memory,
      ...baton.lists,
    });
    for (const [turn, thread] of [
      [1, 'a'],
      [2, 'a'],
      [3, 'b'],
    ] as const) {
      await agent.generate(`Question ${turn}`, {
        memory: { thread, resource: 'user' },
        providerOptions: { anthropic: { contextManagement: { edits: [{ type: 'compact_20260112' }] } } },
      });
    }
    // Through to the provider (so the setting is real), and told once for each thread.
    expect(JSON.stringify(wire.requests[0]?.body)).toContain('compact_20260112');
    expect(events.filter((e) => e.type === 'provider-compaction-configured')).toEqual([
      {
        type: 'provider-compaction-configured',
        sessionId: 'a',
        setting: 'anthropic contextManagement compact_20260112',
      },
      {
        type: 'provider-compaction-configured',
        sessionId: 'b',
        setting: 'anthropic contextManagement compact_20260112',
      },
    ]);
  });
});

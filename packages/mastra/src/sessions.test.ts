import { scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { describe, expect, it } from 'vitest';
import { batonProcessor } from './index.ts';

describe('sessions at the Mastra boundary', () => {
  it('gives two runs without memory sessions of their own: the second never sees the first one’s notes', async () => {
    const baton = batonProcessor({ contextWindow: 16_000 });
    const { model, calls } = scriptedModel(({ call }) =>
      call === 0
        ? { calls: [{ name: 'notes', input: { action: 'write', section: 'secret', text: 'ALPHA-NOTE' } }] }
        : { text: `reply ${call}` },
    );
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'Be brief.', model, ...baton.lists });
    await agent.generate('remember ALPHA', { maxSteps: 3 });
    expect(calls[1]?.visible).toContain('ALPHA-NOTE'); // the writer's own next call sees it
    await agent.generate('an unrelated conversation', { maxSteps: 3 });
    expect(calls).toHaveLength(3);
    expect(calls[2]?.visible).toContain('an unrelated conversation');
    expect(calls[2]?.visible).not.toContain('ALPHA-NOTE');
  });
});

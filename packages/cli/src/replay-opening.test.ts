import { fromOpenAIChat } from '@baton/core';
import { filler } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import { replay } from './replay.ts';

describe('opening request scoring', () => {
  it('charges a lost opening request only once the user has spoken', async () => {
    // tau2's agents greet first: the first model calls happen before any user message exists.
    const entries = fromOpenAIChat([
      { role: 'system', content: 'You are a support agent.' },
      { role: 'assistant', content: 'Hello, how can I help you today?' },
      { role: 'assistant', content: 'Are you still there?' },
      { role: 'user', content: 'My phone has no signal since this morning.' },
      { role: 'assistant', content: 'Let me check your line.' },
      { role: 'user', content: `Here is the log:\n${filler(400, 1)}` },
      { role: 'assistant', content: 'Your line is fine; restart the phone.' },
    ]);
    const result = await replay(entries, { contextWindow: 32_000, interval: 10, pinned: [] });
    for (const policy of result.policies) {
      expect(policy.compactions, policy.key).toBe(0);
      expect(policy.openingLost, policy.key).toBe(0);
    }
  });

  it('still charges a lost opening request after it was said', async () => {
    const entries = fromOpenAIChat([
      { role: 'system', content: 'You read pages.' },
      { role: 'user', content: `Read every page and report. ${filler(2_000, 0)}` },
      ...Array.from({ length: 12 }, (_, i) => [
        { role: 'assistant' as const, content: `Page ${i}?` },
        { role: 'user' as const, content: `page ${i}\n${filler(3_000, i + 1)}` },
      ]).flat(),
      { role: 'assistant', content: 'Done.' },
    ]);
    const result = await replay(entries, { contextWindow: 4_000, interval: 10, pinned: [] });
    const oldest = result.policies.find((p) => p.key === 'deleteOldest');
    expect(oldest?.openingLost).toBeGreaterThan(0);
  });
});

import { pairingViolation } from '@baton/core/internals';
import { filler, scriptedModel } from '@baton/testing/ai-sdk';
import { generateText, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton, gptTokenizer, type HostMessage, TokenCounter, toEntries } from './index.ts';

describe('prepareStep (rewrite mode)', () => {
  it('rewrites the carried-forward history with the archive written first, and keeps notes in the instructions', async () => {
    const baton = createBaton({ contextWindow: 8_000 });
    const session = baton.session('rewrite');
    const { model, prompts } = scriptedModel(({ step }) => {
      if (step === 1)
        return {
          calls: [{ name: 'notes', input: { action: 'write', section: 'goal', text: 'read all files' } }],
        };
      if (step >= 25) return { text: 'done' };
      return { calls: [{ name: 'read_file', input: { path: `f${step}.ts` } }] };
    });
    const result = await generateText({
      model,
      tools: {
        ...session.tools,
        read_file: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => `${path}\n${filler(2_000, path.length)}`,
        }),
      },
      prepareStep: session.prepareStep,
      instructions: 'You read files.',
      stopWhen: stepCountIs(30),
      prompt: 'Read the files.',
    });
    expect(result.text).toBe('done');
    const budget = baton.core.options.inputBudget;
    // Every prompt stays near the budget although the loop read 23 files of ~500 tokens.
    const counter = new TokenCounter(gptTokenizer(), 512);
    for (const prompt of prompts) {
      const entries = toEntries(prompt as HostMessage[]);
      expect(entries.reduce((sum, e) => sum + counter.raw(e), 0)).toBeLessThanOrEqual(budget);
      expect(pairingViolation(entries)).toBeUndefined();
    }
    // The history was really rewritten: late prompts carry Baton's folded placeholders.
    expect(JSON.stringify(prompts.at(-1))).toContain('[baton] Folded read_file result');
    const late = prompts.at(-1)!;
    const system = late
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    expect(system).toContain('You read files.');
    expect(system).toContain('### goal\nread all files');
    // Evicted results are in the archive, recallable verbatim.
    const records = await session.core.archive.search('f3.ts');
    expect(records.length).toBeGreaterThan(0);
  });
});

import { gptTokenizer, TokenCounter } from '@baton/core';
import { isBatonBlock, type PromptMessage, pairingViolation, promptToEntries } from '@baton/core/internals';
import { filler, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BatonConfigError, batonProcessor } from './index.ts';

const counter = new TokenCounter(gptTokenizer(), 512);
const SKILL = `SKILL-DOC: release checklist\n${filler(1_500, 7)}\nSKILL-END`;

const workTools = {
  read_file: createTool({
    id: 'read_file',
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}\n${filler(2_400, path.length)}`,
  }),
  load_skill: createTool({
    id: 'load_skill',
    description: 'Load a skill document',
    inputSchema: z.object({ name: z.string() }),
    execute: async () => SKILL,
  }),
};

function memoryWith(workingMemory: boolean, scope: 'thread' | 'resource' = 'thread') {
  return new Memory({
    storage: new LibSQLStore({ id: `baton-test-${Math.random()}`, url: ':memory:' }),
    options: { ...(workingMemory ? { workingMemory: { enabled: true, scope } } : {}) },
  });
}

/** Tokens of exactly what the model received (Baton's own block included), counted independently. */
function sentTokens(prompt: PromptMessage[]): number {
  return (
    promptToEntries(prompt).reduce((sum, e) => sum + counter.raw(e), 0) +
    prompt
      .filter(isBatonBlock)
      .reduce(
        (sum, m) =>
          sum + counter.rawText(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)),
        0,
      )
  );
}

describe('BatonProcessor through a real Agent', () => {
  for (const mode of ['generate', 'stream'] as const)
    it(`keeps a long tool loop within budget, pairs tools, keeps pinned results verbatim, and never changes stored messages (${mode})`, async () => {
      const memory = memoryWith(false);
      const baton = batonProcessor({ contextWindow: 16_000, pinnedTools: ['load_skill'], memory });
      const { model, calls } = scriptedModel(({ call }) => {
        if (call === 0) return { calls: [{ name: 'load_skill', input: { name: 'release' } }] };
        if (call === 5)
          return {
            calls: [
              { name: 'notes', input: { action: 'write', section: 'plan', text: 'ship v2 after the audit' } },
            ],
          };
        if (call >= 119) return { text: 'done' };
        return { calls: [{ name: 'read_file', input: { path: `src/file_${call}.ts` } }] };
      });
      const agent = new Agent({
        id: 'auditor',
        name: 'auditor',
        instructions: 'You are a release engineer.',
        model,
        tools: workTools,
        memory,
        ...baton.lists,
      });
      const options = { memory: { thread: 'long-loop', resource: 'team' }, maxSteps: 120 };
      const text =
        mode === 'generate'
          ? (await agent.generate('Audit the repository, then ship v2.', options)).text
          : await (await agent.stream('Audit the repository, then ship v2.', options)).text;

      expect(text).toBe('done');
      expect(calls).toHaveLength(120);
      const budget = baton.core.options.inputBudget!;
      for (const { prompt } of calls) {
        expect(sentTokens(prompt)).toBeLessThanOrEqual(budget);
        expect(pairingViolation(promptToEntries(prompt).filter((e) => e.role !== 'system'))).toBeUndefined();
      }
      expect(calls.some((c) => c.visible.includes('Context was compacted'))).toBe(true);
      const late = calls[100]!;
      expect(late.visible).toContain(JSON.stringify(SKILL).slice(1, -1));
      expect(late.system).toContain('### plan\nship v2 after the audit');
      expect(late.visible).toContain('Audit the repository, then ship v2.');

      // View mode: Mastra's storage holds the whole run, untouched.
      const stored = await memory.recall({ threadId: 'long-loop', perPage: false });
      type Invocation = { toolCallId: string; toolName: string; result?: unknown };
      const results = stored.messages
        .flatMap((m) => m.content.parts ?? [])
        .flatMap((p) =>
          p.type === 'tool-invocation' ? [(p as { toolInvocation: Invocation }).toolInvocation] : [],
        )
        .filter((invocation) => invocation.toolName === 'read_file');
      expect(results).toHaveLength(117); // calls 1-118 but the notes call at 5

      // Recall gives back an evicted result byte-identical to what Mastra stored for that call.
      const session = baton.session('long-loop');
      const [archived] = await session.archive.search('src/file_3.ts\n');
      const evicted = archived!.entry.parts.find((p) => p.type === 'tool-result')!;
      const original = results.find((i) => i.toolCallId === (evicted as { callId: string }).callId)!;
      expect(original.result).toBe((evicted as { output: unknown }).output);
      const recallTool = session.tools.find((t) => t.name === 'recall')!;
      const ref = `${archived!.ref}#${(evicted as { callId: string }).callId}`;
      const recalled = (await recallTool.execute({ ref, limit: 100_000 })) as { content: string };
      expect(recalled.content).toBe(original.result);
    }, 60_000);

  for (const scope of ['thread', 'resource'] as const)
    it(`keeps working memory as the run (or a compaction) rendered it: an update is in the history, the prefix stays, and the notes tool writes working memory (${scope} scope)`, async () => {
      const memory = memoryWith(true, scope);
      const baton = batonProcessor({ contextWindow: 16_000, memory });
      const { model, calls } = scriptedModel(({ call }) => {
        if (call === 0) return { calls: [{ name: 'read_file', input: { path: 'a.ts' } }] };
        if (call === 1) return { calls: [{ name: 'read_file', input: { path: 'b.ts' } }] };
        if (call === 2)
          return {
            calls: [
              { name: 'updateWorkingMemory', input: { memory: '## goal\nfix the flaky test in b.ts' } },
            ],
          };
        if (call === 3)
          return {
            calls: [
              { name: 'notes', input: { action: 'append', section: 'done', text: 'read a.ts and b.ts' } },
            ],
          };
        return { text: 'ok' };
      });
      const agent = new Agent({
        id: 'wm',
        name: 'wm',
        instructions: 'Fix tests.',
        model,
        tools: workTools,
        memory,
        ...baton.lists,
      });
      const run = (text: string) =>
        agent.generate(text, { memory: { thread: 'wm-thread', resource: 'dev' }, maxSteps: 8 });
      await run('Fix the flaky test.');

      expect(calls).toHaveLength(5);
      // No compaction in this run: the system prompt of every call is the one of the first, so
      // each prompt starts with the one before byte for byte (the provider's cache keeps hitting)…
      for (const call of calls.slice(1)) expect(call.system).toBe(calls[0]!.system);
      for (let i = 1; i < calls.length; i++) {
        const previous = calls[i - 1]!.prompt;
        expect(JSON.stringify(calls[i]!.prompt.slice(0, previous.length))).toBe(JSON.stringify(previous));
      }
      // …and the update of step 3 reaches the next call as the agent's own tool call.
      expect(calls[3]!.visible).toContain('fix the flaky test in b.ts');
      // The next run renders working memory afresh (Mastra), notes tool write included, once.
      await run('Go on.');
      expect(calls[5]!.system).toContain('## goal\nfix the flaky test in b.ts');
      expect(calls[5]!.system).toContain('## done\nread a.ts and b.ts');
      expect(calls[5]!.system.split('read a.ts and b.ts').length - 1).toBe(1);
      expect(
        await memory.getWorkingMemory({
          threadId: scope === 'thread' ? 'wm-thread' : 'another-thread',
          resourceId: 'dev',
        }),
      ).toBe('## goal\nfix the flaky test in b.ts\n\n## done\nread a.ts and b.ts');
    });

  it('refreshes working memory where a compaction breaks the prefix anyway, and keeps it for the rest of the run', async () => {
    const memory = memoryWith(true);
    const baton = batonProcessor({ contextWindow: 16_000, memory });
    const { model, calls } = scriptedModel(({ call }) => {
      if (call === 1)
        return { calls: [{ name: 'updateWorkingMemory', input: { memory: '## goal\nWM-AFTER-UPDATE' } }] };
      if (call === 8) return { calls: [{ name: 'compact', input: { instruction: 'keep the goal' } }] };
      if (call >= 11) return { text: 'ok' };
      return { calls: [{ name: 'read_file', input: { path: `f${call}.ts` } }] };
    });
    const agent = new Agent({
      id: 'wm-c',
      name: 'wm-c',
      instructions: 'Fix tests.',
      model,
      tools: workTools,
      memory,
      ...baton.lists,
    });
    await agent.generate('Fix the flaky test.', {
      memory: { thread: 'wm-compact', resource: 'dev' },
      maxSteps: 14,
    });
    expect(calls[8]!.system).not.toContain('WM-AFTER-UPDATE');
    // Call 9 compacted (the compact tool): the prefix breaks there, and working memory is refreshed with it…
    expect(calls[9]!.trailer).toContain('Context was compacted');
    expect(calls[9]!.system).toContain('WM-AFTER-UPDATE');
    // …and stays so for the run's later steps, whose prompts again extend the one before.
    expect(calls[10]!.system).toBe(calls[9]!.system);
    const previous = calls[9]!.prompt.slice(0, -1);
    expect(JSON.stringify(calls[10]!.prompt.slice(0, previous.length))).toBe(JSON.stringify(previous));
  });

  it('rejects options that are not a Mastra Memory or not valid Baton options with a typed error', () => {
    expect(() => batonProcessor({ contextWindow: 16_000, memory: {} as never })).toThrow(BatonConfigError);
    expect(() => batonProcessor({ contextWindow: -1 })).toThrow(BatonConfigError);
    expect(() => batonProcessor({ contextWindow: 16_000, sessionId: 'x' } as never)).toThrow(/sessionId/);
  });
});

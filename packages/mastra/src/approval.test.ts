import { MISSING_RESULT_TEXT } from '@baton/core/internals';
import { filler, scriptedModel } from '@baton/testing/mastra';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonEvent, batonProcessor } from './index.ts';

const tools = {
  read_file: createTool({
    id: 'read_file',
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}\n${filler(2_400, path.length)}`,
  }),
  deploy: createTool({
    id: 'deploy',
    description: 'Deploy to a target',
    inputSchema: z.object({ target: z.string() }),
    requireApproval: true,
    // A deploy log (worth folding, were Baton to fold it) whose outcome is its last line.
    execute: async ({ target }) => `deploy log\n${filler(2_400, 3)}\nDEPLOYED to ${target}`,
  }),
};

describe('Mastra tool approval (requireApproval) under Baton', () => {
  it('a call awaiting approval is never answered, folded or evicted by Baton, and runs with its real result once approved', async () => {
    const storage = new LibSQLStore({ id: `approval-${Math.random()}`, url: ':memory:' });
    const memory = new Memory({ storage });
    const events: BatonEvent[] = [];
    const baton = batonProcessor({ contextWindow: 8_000, memory, onEvent: (e) => events.push(e) });
    // Reads overflow 8k (Baton compacts on the way), then the agent asks to compact and deploy
    // in one step: the compaction runs on the step the approval resumes, beside the fresh result.
    const { model, calls } = scriptedModel(({ call, visible }) => {
      if (visible.includes('DEPLOYED to prod')) return { text: 'done' };
      if (call < 12) return { calls: [{ name: 'read_file', input: { path: `f${call}.ts` } }] };
      return {
        calls: [
          { name: 'compact', input: { instruction: 'keep what the files say' } },
          { name: 'deploy', input: { target: 'prod' } },
        ],
      };
    });
    const agent = new Agent({
      id: 'deployer',
      name: 'deployer',
      instructions: 'Read the files, then deploy.',
      model,
      tools,
      memory,
      ...baton.lists,
    });
    // Suspended runs are snapshots in the Mastra instance's storage.
    new Mastra({ agents: { deployer: agent }, storage, logger: false });
    const thread = { thread: 'approval', resource: 'ops' };

    const first = await agent.generate('Read, then deploy.', { memory: thread, maxSteps: 40 });
    expect(first.finishReason).toBe('suspended');
    const { toolCallId, toolName } = first.suspendPayload as { toolCallId: string; toolName: string };
    expect(toolName).toBe('deploy');
    // While it awaits approval, the call is stored unanswered: nothing Baton made up.
    const stored = JSON.stringify(
      (await memory.recall({ threadId: 'approval', resourceId: 'ops' })).messages,
    );
    expect(stored).toContain(toolCallId);
    expect(stored).not.toContain('DEPLOYED');
    expect(stored).not.toContain(MISSING_RESULT_TEXT);

    const runId = first.runId;
    expect(runId).toEqual(expect.any(String));
    const before = calls.length;
    const second = await agent.approveToolCallGenerate({
      runId: runId as string,
      toolCallId,
      memory: thread,
    });
    expect(second.text).toBe('done');
    // The step the approval resumed compacted (the agent's compact), and its prompt still holds the
    // approved call with its real result, verbatim: neither folded nor evicted.
    const resumed = calls[before]!;
    expect(resumed.trailer).toContain('Context was compacted');
    const results = resumed.prompt
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((part) => part.type === 'tool-result' && part.toolCallId === toolCallId);
    expect(JSON.stringify(results)).toContain('DEPLOYED to prod');
    expect(events.filter((e) => e.type === 'stage-completed').length).toBeGreaterThan(0);
    expect(JSON.stringify(calls.map((c) => c.prompt))).not.toContain(MISSING_RESULT_TEXT);
  });
});

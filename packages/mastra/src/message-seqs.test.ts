import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PromptMessage } from '@baton/core/internals';
import { filler, scriptedModel } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import type { ProcessLLMRequestArgs } from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { epochOf, storedMessageSeqs } from './message-seqs.ts';

/** Each prompt message Mastra sent (by its content) with the seq it got, call after call. */
function seqRecorder() {
  const seen: Array<Array<{ content: string; seq: number | undefined }>> = [];
  const processor = {
    id: 'seq-recorder',
    processLLMRequest(args: ProcessLLMRequestArgs) {
      const memory = args.requestContext?.get('MastraMemory') as { thread?: { createdAt?: unknown } };
      const prompt = args.prompt as unknown as PromptMessage[];
      const seqs = storedMessageSeqs(prompt, args.messageList?.get.all.db() ?? [], epochOf(memory.thread));
      seen.push(
        prompt
          .filter((message) => message.role !== 'system')
          .map((message) => ({ content: JSON.stringify(message), seq: seqs.get(message) })),
      );
      return undefined;
    },
  };
  return { processor, seen };
}

describe("seqs of Mastra's messages", () => {
  it('stay with each message while lastMessages slides, across steps, working-memory edits and a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-seqs-'));
    const lookup = createTool({
      id: 'lookup',
      description: 'Look up a topic',
      inputSchema: z.object({ topic: z.string() }),
      execute: async ({ topic }) => `${topic}: ${filler(200, topic.length)}`,
    });
    // Two lookups per turn; every third turn a step that only edits working memory first
    // (Mastra drops that call from the turn once it is stored).
    const { model } = scriptedModel(({ prompt }) => {
      const turn = prompt.filter((m) => m.role === 'user').length;
      const steps = prompt
        .slice(prompt.findLastIndex((m) => m.role === 'user'))
        .filter((m) => m.role === 'tool');
      if (turn % 3 === 0 && steps.length === 0)
        return { calls: [{ name: 'updateWorkingMemory', input: { memory: `## turn\n${turn}` } }] };
      if (steps.length < (turn % 3 === 0 ? 3 : 2))
        return { calls: [{ name: 'lookup', input: { topic: `t${turn}-${steps.length}` } }] };
      return { text: `answer ${turn}` };
    });
    const recorder = seqRecorder();
    const open = () => {
      const storage = new LibSQLStore({ id: 'seqs', url: `file:${join(dir, 'seqs.db')}` });
      const memory = new Memory({ storage, options: { lastMessages: 4, workingMemory: { enabled: true } } });
      const agent = new Agent({
        id: 'seqs',
        name: 'seqs',
        instructions: 'Answer.',
        model,
        tools: { lookup },
        memory,
        inputProcessors: [recorder.processor],
      });
      return { agent, storage };
    };
    let chat = open();
    for (let turn = 1; turn <= 12; turn++) {
      await chat.agent.generate(`question ${turn}`, { memory: { thread: 'seqs', resource: 'user' } });
      if (turn === 6) {
        await chat.storage.close();
        chat = open();
      }
    }
    await chat.storage.close();
    await rm(dir, { recursive: true, force: true });

    // Each message has one seq in every prompt it was part of (the window slid 10 times).
    const seqsOf = new Map<string, Set<number | undefined>>();
    for (const prompt of recorder.seen)
      for (const { content, seq } of prompt) seqsOf.set(content, (seqsOf.get(content) ?? new Set()).add(seq));
    expect(recorder.seen.length).toBeGreaterThan(36);
    for (const [content, seqs] of seqsOf) {
      expect([...seqs], content.slice(0, 120)).toHaveLength(1);
      expect([...seqs][0], content.slice(0, 120)).toBeTypeOf('number');
    }
    // And the seqs increase along every prompt: a range of them is one stretch of the thread.
    for (const prompt of recorder.seen) {
      const seqs = prompt.map(({ seq }) => seq as number);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
  });
});

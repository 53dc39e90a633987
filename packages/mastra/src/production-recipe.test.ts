import { filler, type ScriptedTurn, scriptedModel, trailerOf } from '@baton/testing/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonProcessor } from './index.ts';

// The production recipe of issue #29: an Agent with Memory (working memory on, lastMessages
// 10, LibSQL), a tool call on most turns, Baton at a window small enough that it summarizes
// and archives as the thread grows. Every assertion is on what the model received or what
// recall returns to it.

const TURNS = 26;
const THREAD = 'recipe';
/** Turns answered without a tool: 26 turns + 23 tool steps = 49 model calls. */
const PLAIN = new Set([9, 17, 21]);
/** The agent's first notes go through Baton's notes tool (working memory empty until then)… */
const NOTES_TURN = 1;
/** …and a later edit through Mastra's own working-memory tool. */
const WORKING_MEMORY_TURN = 13;
/** How a summary message begins (core's summarize stage). */
const SUMMARY_HEADER = '[baton] Summary of earlier conversation';

const tag = (turn: number) => `[turn ${turn}]`;

type Part = { type: string; text?: string; input?: unknown; output?: unknown };
type Message = { role: string; content: string | Part[] };

const textOf = (message: Message) =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => p.text ?? JSON.stringify(p.output ?? p.input ?? '')).join('\n');

/** The turns a text names: the tags of user messages, answers and results, the topics of lookup calls. */
const turnsIn = (text: string) =>
  [...text.matchAll(/\[turn (\d+)\]|topic-(\d+)/g)].map((m) => Number(m[1] ?? m[2]));

/** The `recall({ from, to })` ranges a summary or notice advertises. */
const rangesIn = (text: string) =>
  [...text.matchAll(/recall\(\{ "from": (\d+), "to": (\d+) \}\)/g)].map(
    (m) => [Number(m[1]), Number(m[2])] as const,
  );

/** The model: decides from the prompt it is sent, as a real one would. */
function script({ prompt }: { prompt: unknown }): ScriptedTurn {
  const sent = prompt as Message[];
  const conversation = trailerOf(sent) ? sent.slice(0, -1) : sent;
  const user = conversation.findLast((m) => m.role === 'user' && /\[turn \d+\]/.test(textOf(m)));
  const turn = Number(/\[turn (\d+)\]/.exec(user ? textOf(user) : '')?.[1]);
  if (conversation.at(-1)?.role === 'tool' || PLAIN.has(turn))
    return { text: `${tag(turn)} Answer ${turn}: ${filler(1_600, turn)}` };
  if (turn === NOTES_TURN)
    return {
      calls: [
        {
          name: 'notes',
          input: { action: 'write', section: 'plan', text: 'Help the user with topics 1-26.' },
        },
      ],
    };
  if (turn === WORKING_MEMORY_TURN)
    return {
      calls: [
        {
          name: 'updateWorkingMemory',
          input: { memory: '## plan\nHelp the user with topics 1-26.\n\n## user\nPrefers short answers.' },
        },
      ],
    };
  return { calls: [{ name: 'lookup', input: { topic: `topic-${turn}` } }] };
}

const lookup = createTool({
  id: 'lookup',
  description: 'Look up reference material on a topic',
  inputSchema: z.object({ topic: z.string() }),
  // About 1,000 tokens, tagged with its turn.
  execute: async ({ topic }) => {
    const turn = Number(topic.split('-')[1]);
    return `${tag(turn)} Reference material on ${topic}:\n${filler(4_000, turn * 31)}`;
  },
});

describe('Mastra production recipe: Agent + Memory (working memory, lastMessages: 10) + Baton, 26 turns', () => {
  it('tells no false notes change, sends one summary per prompt, and a recalled seq range is one stretch of turns', async () => {
    const memory = new Memory({
      storage: new LibSQLStore({ id: `recipe-${Math.random()}`, url: ':memory:' }),
      options: { lastMessages: 10, workingMemory: { enabled: true } },
    });
    const baton = batonProcessor({ contextWindow: 6_000, memory });
    const { model, calls } = scriptedModel(script);
    const agent = new Agent({
      id: 'recipe',
      name: 'recipe',
      instructions: 'You are a helpful assistant. Use recall to read archived parts of the conversation.',
      model,
      tools: { lookup },
      memory,
      ...baton.lists,
    });
    for (let turn = 1; turn <= TURNS; turn++)
      await agent.generate(`${tag(turn)} Tell me about topic-${turn}.`, {
        memory: { thread: THREAD, resource: 'user' },
      });
    expect(calls).toHaveLength(49);
    const prompts = calls.map((call) => call.prompt as Message[]);

    // Notes: working memory holds them from the first step on, the model sees the write in its
    // history for the rest of that run and Mastra's system message shows them from the next run
    // on. Baton has no change to tell (it told "cleared" on 48 of 49 calls).
    expect(await memory.getWorkingMemory({ threadId: THREAD, resourceId: 'user' })).toContain('## plan');
    expect(calls[1]?.visible).toContain('Help the user with topics 1-26.');
    for (const call of calls.slice(2)) expect(call.system).toContain('Help the user with topics 1-26.');
    expect(calls.filter((call) => call.trailer.includes('Your notes were'))).toEqual([]);

    // One summary per prompt (14 of 49 prompts carried two in the issue, 23 here), and the
    // window's summarizing happened: 43 prompts carry one.
    const summaries = prompts.map(
      (prompt) => prompt.filter((m) => textOf(m).startsWith(SUMMARY_HEADER)).length,
    );
    expect(Math.max(...summaries)).toBe(1);
    expect(summaries.filter((n) => n === 1).length).toBeGreaterThan(TURNS);

    // The archive: a seq per message, in the order of the conversation (89 records shared 18
    // seqs: positions in the sliding window).
    const session = baton.session(THREAD);
    const archive = await session.archive.range(0, Number.MAX_SAFE_INTEGER);
    expect(archive.length).toBeGreaterThan(60);
    expect(new Set(archive.map((record) => record.seq)).size).toBe(archive.length);
    const turnOrder = archive.flatMap((record) => turnsIn(JSON.stringify(record.entry.parts)).slice(0, 1));
    expect(turnOrder).toEqual([...turnOrder].sort((a, b) => a - b));

    // Every range a summary or notice advertised recalls one stretch of turns, in order (74 of
    // 85 mixed turns from all over the thread).
    const recall = session.tools.find((tool) => tool.name === 'recall')!;
    const advertised = prompts.flatMap((prompt) => rangesIn(prompt.map(textOf).join('\n')));
    expect(advertised.length).toBeGreaterThan(TURNS);
    for (const [from, to] of advertised) {
      const { content } = (await recall.execute({ from, to, limit: 1_000_000 })) as { content: string };
      const turns = turnsIn(content);
      expect(turns, `recall({ from: ${from}, to: ${to} })`).toEqual([...turns].sort((a, b) => a - b));
      expect(turns.at(-1)! - turns[0]! + 1, `recall({ from: ${from}, to: ${to} })`).toBe(new Set(turns).size);
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gptTokenizer, UNFIT_STEP_PREFIX } from '@baton/mastra';
import { conversationOf, filler, type ScriptedTurn, scriptedModel } from '@baton/testing/mastra';
import { createTool } from '@mastra/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChatReply, createMemoryChat } from './memory-chat.ts';

const WINDOW = 10_000;
const TURNS = 26;
const DOC_TURN = 12;
const RESTART_AFTER = 13;
const RECALL_TURN = 22;
const MARKER = 'The vault combination for project Heliotrope is 7319-KESTREL-42.';
const UNFIT_TEXT = UNFIT_STEP_PREFIX;

const o200k = gptTokenizer('o200k_base');
const tag = (turn: number) => `[turn ${turn}]`;

// About 9,600 o200k tokens with the marker near the middle: larger than the input budget on its own.
const DOC = [
  `${tag(DOC_TURN)} Here is the design document I mentioned:`,
  filler(23_600, 1_201),
  MARKER,
  filler(23_600, 1_202),
  'Can you tell me whether it is consistent?',
].join('\n');

interface Plan {
  text: string;
  /** A tool the model calls before answering. */
  tool?: 'lookup' | 'recall';
  stream: boolean;
  answer: string;
}

const plan: Plan[] = Array.from({ length: TURNS }, (_, i) => {
  const turn = i + 1;
  const base = { stream: turn % 3 === 2, answer: `Answer ${turn}.` };
  if (turn === DOC_TURN) return { ...base, text: DOC, answer: 'The document is consistent.' };
  if (turn === 17) return { ...base, text: `${tag(turn)} what is 2+2?`, answer: '4' };
  if (turn === RECALL_TURN)
    return { ...base, text: `${tag(turn)} What was the vault combination in that document?`, tool: 'recall' };
  if ([3, 7, 10, 15, 20, 24].includes(turn))
    return { ...base, text: `${tag(turn)} Look up topic-${turn} for me.`, tool: 'lookup' };
  return { ...base, text: `${tag(turn)} Short question number ${turn}?` };
});

const lookup = createTool({
  id: 'lookup',
  description: 'Look up reference material on a topic',
  inputSchema: z.object({ topic: z.string() }),
  // About 1,400 tokens per result.
  execute: async ({ topic }) => `Reference material on ${topic}:\n${filler(7_800, topic.length * 31)}`,
});

type Part = { type: string; text?: string; toolName?: string; input?: unknown; output?: unknown };
type Message = { role: string; content: string | Part[] };
type ToolDefinition = { name: string; description?: string; inputSchema?: unknown };

const partsOf = (message: Message): Part[] =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;

/**
 * Tokens of a prompt as sent, measured here rather than taken from Baton: o200k over every
 * text, tool-call input and tool-result output (JSON), plus 3 tokens of framing per message,
 * plus each tool definition (name, description, JSON schema).
 */
function promptTokens(prompt: Message[], tools: ToolDefinition[]): number {
  let total = 0;
  for (const message of prompt) {
    total += 3;
    for (const part of partsOf(message)) {
      if (part.type === 'text' || part.type === 'reasoning') total += o200k.count(part.text ?? '');
      else if (part.type === 'tool-call')
        total += o200k.count(part.toolName ?? '') + o200k.count(JSON.stringify(part.input));
      else if (part.type === 'tool-result')
        total += o200k.count(part.toolName ?? '') + o200k.count(JSON.stringify(part.output));
      else total += o200k.count(JSON.stringify(part));
    }
  }
  for (const tool of tools)
    total += o200k.count(`${tool.name} ${tool.description ?? ''} ${JSON.stringify(tool.inputSchema ?? {})}`);
  return total;
}

/** The turn a prompt belongs to: the tag in its latest user message (a degraded one keeps its head). */
function turnOf(prompt: Message[]): number {
  const user = prompt.findLast((m) => m.role === 'user');
  const text = user
    ? partsOf(user)
        .map((p) => p.text ?? '')
        .join('')
    : '';
  const turn = /\[turn (\d+)\]/.exec(text)?.[1];
  if (!turn) throw new Error(`no turn tag in the latest user message: ${text.slice(0, 80)}`);
  return Number(turn);
}

/** The model: decides from the prompt it is sent alone, as a real one would. */
function script({ prompt: sent }: { prompt: unknown }): ScriptedTurn {
  // Baton's notices come after the conversation, as a last user message of their own.
  const prompt = conversationOf(sent as Message[]);
  const turn = turnOf(prompt);
  const step = plan[turn - 1]!;
  const last = prompt.findLast((m) => m.role !== 'system')!;
  if (last.role === 'tool') {
    if (step.tool !== 'recall') return { text: step.answer };
    const found = /\d{4}-KESTREL-\d+/.exec(JSON.stringify(last.content))?.[0];
    return { text: found ? `It was ${found}.` : 'I could not find it.' };
  }
  if (step.tool === 'lookup') return { calls: [{ name: 'lookup', input: { topic: `topic-${turn}` } }] };
  if (step.tool === 'recall') return { calls: [{ name: 'recall', input: { query: 'vault combination' } }] };
  return { text: step.answer };
}

describe('Mastra Agent + Memory (lastMessages: 10) + Baton, one thread over 26 turns and a restart', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-memory-chat-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers every turn within the budget, keeps every message, and recalls the document after it left the window', async () => {
    const { model, calls } = scriptedModel(script);
    const conversation = { thread: 'chat-1', resource: 'user-1' };
    const options = { model, dbFile: join(dir, 'chat.db'), contextWindow: WINDOW, tools: { lookup } };
    let chat = createMemoryChat(options);
    const budget = chat.baton.core.options.inputBudget!;
    expect(o200k.count(DOC)).toBeGreaterThan(budget);
    expect(o200k.count(DOC)).toBeLessThan(9_800);

    const replies: ChatReply[] = [];
    const callsOfTurn: number[][] = [];
    for (const [i, step] of plan.entries()) {
      const turn = i + 1;
      if (turn === RECALL_TURN) {
        // The document has left Mastra's window: at least 10 messages were stored after it.
        const stored = (await chat.memory.recall({ threadId: conversation.thread, perPage: false })).messages;
        const at = stored.findIndex((m) => JSON.stringify(m.content).includes(MARKER));
        expect(stored.length - at - 1).toBeGreaterThanOrEqual(10);
      }
      const first = calls.length;
      let streamed = '';
      const reply = await chat.send(
        conversation,
        step.text,
        step.stream ? { onText: (delta) => (streamed += delta) } : {},
      );
      if (step.stream) expect(streamed).toBe(reply.text);
      replies.push(reply);
      callsOfTurn.push(Array.from({ length: calls.length - first }, (_, k) => first + k));
      if (turn === RESTART_AFTER) {
        // A new process: new storage handle, Memory, processor and Agent on the same file.
        await chat.close();
        chat = createMemoryChat(options);
      }
    }

    // Every turn answered by the model, none ended unfit (turn 17 included).
    for (const [i, reply] of replies.entries()) {
      expect(reply.unfit, `turn ${i + 1}`).toBeUndefined();
      expect(reply.text.startsWith(UNFIT_TEXT), `turn ${i + 1}`).toBe(false);
    }
    expect(replies.map((r) => r.text)).toEqual(
      plan.map((step, i) => (i + 1 === RECALL_TURN ? 'It was 7319-KESTREL-42.' : step.answer)),
    );
    expect(callsOfTurn.map((c) => c.length)).toEqual(plan.map((step) => (step.tool ? 2 : 1)));

    // Every prompt that reached the model fits the input budget (window minus reserved output).
    const sent = [...model.doGenerateCalls, ...model.doStreamCalls];
    const tokens = calls.map((call) => {
      const options = sent.find((o) => o.prompt === (call.prompt as unknown));
      expect(options).toBeDefined();
      return promptTokens(call.prompt as Message[], (options?.tools ?? []) as ToolDefinition[]);
    });
    // Measured: 33 calls, the largest prompt 4,506 tokens (turns 24-25: two lookup results in the window).
    for (const [k, count] of tokens.entries()) expect(count, `call ${k}`).toBeLessThanOrEqual(budget);

    // After the restart the thread went on from storage: turn 14 saw turn 13.
    const firstPrompt = (turn: number) => calls[callsOfTurn[turn - 1]![0]!]!;
    expect(firstPrompt(RESTART_AFTER + 1).visible).toContain(tag(RESTART_AFTER));
    // At turn 17 the document is the oldest message of Mastra's window; at turn 18 it is gone.
    const oldest = (firstPrompt(17).prompt as unknown as Message[]).find((m) => m.role !== 'system');
    expect(JSON.stringify(oldest)).toContain(tag(DOC_TURN));
    expect(firstPrompt(18).visible).not.toContain(tag(DOC_TURN));

    // The recall result the model received holds the marker, byte-exact.
    const [, afterRecall] = callsOfTurn[RECALL_TURN - 1]!;
    const recalled = (calls[afterRecall!]!.prompt as unknown as Message[])
      .flatMap(partsOf)
      .filter((p) => p.type === 'tool-result' && p.toolName === 'recall');
    expect(recalled).toHaveLength(1);
    expect(JSON.stringify(recalled[0]!.output)).toContain(MARKER);

    // Mastra's storage keeps the whole thread: every user message, the document verbatim.
    const stored = (await chat.memory.recall({ threadId: conversation.thread, perPage: false })).messages;
    const userTexts = stored
      .filter((m) => m.role === 'user')
      .map((m) => m.content.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
    expect(userTexts).toEqual(plan.map((step) => step.text));
    await chat.close();
  });
});

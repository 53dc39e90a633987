/**
 * The chat route driven the way `useChat` drives it: the client keeps the UI messages, posts
 * all of them on every request through the SDK's own `DefaultChatTransport`, and reads each
 * streamed reply back with `readUIMessageStream`. 26 turns at a 10,000-token window, a pasted
 * document bigger than the whole input budget on turn 1, app tool calls along the way, a
 * server restart after turn 13, and a late `recall` of a sentence from the middle of the
 * document.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import {
  type BatonEvent,
  createBaton,
  gptTokenizer,
  type HostMessage,
  type RecallResult,
  sqliteStore,
  TokenCounter,
  toEntries,
  UNFIT_STEP_PREFIX,
} from '@baton/ai-sdk';
import { conversationOf, filler, type ScriptedTurn, scriptedModel } from '@baton/testing/ai-sdk';
import { DefaultChatTransport, readUIMessageStream, tool, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createChatRoute } from './chat-route.ts';

const CONTEXT_WINDOW = 10_000;
const CHAT_ID = 'chat-7f3a';
const TURNS = 26;
const RESTART_AFTER = 13;
const RECALL_TURN = 22;
const NOTES_TURN = 5;
const NOTE = 'The user is on the night shift this week.';
const UNFIT_PREFIX = UNFIT_STEP_PREFIX;

const MARKER = 'The vault under the old mill opens with the combination 7-41-93, said Ada Quill.';
const DOCUMENT = `${filler(23_600, 11)}\n${MARKER}\n${filler(23_600, 12)}`;
const FIRST_QUESTION = 'What is this incident report about?';

/** What the user asks at each turn, and the tool the scripted model reaches for first. */
interface Turn {
  question: string;
  text: string;
  tool?:
    | { name: 'lookup'; input: { topic: string } }
    | { name: 'recall'; input: { query: string } }
    | { name: 'notes'; input: { action: 'write'; section: string; text: string } };
}

function plan(turn: number): Turn {
  if (turn === 1) {
    return { question: FIRST_QUESTION, text: `Here is the report:\n\n${DOCUMENT}\n\n${FIRST_QUESTION}` };
  }
  if (turn === NOTES_TURN) {
    const question = 'Please remember that I am on the night shift this week.';
    return {
      question,
      text: question,
      tool: { name: 'notes', input: { action: 'write', section: 'user', text: NOTE } },
    };
  }
  if (turn === RECALL_TURN) {
    const question = 'What was the vault combination in the report I pasted at the start?';
    return {
      question,
      text: question,
      tool: { name: 'recall', input: { query: 'vault under the old mill' } },
    };
  }
  if (turn % 3 === 0) {
    const question = `Look up the runbook for service ${turn} and tell me its owner.`;
    return { question, text: question, tool: { name: 'lookup', input: { topic: `service ${turn}` } } };
  }
  const question = `what is ${turn}+${turn}?`;
  return { question, text: question };
}

const answerTo = (turn: number) => `Answer ${turn}: done.`;

/** The text of the last user message the model was sent. */
function lastUserText(prompt: LanguageModelV4Prompt): string {
  const user = prompt.findLast((message) => message.role === 'user');
  if (user?.role !== 'user') return '';
  return user.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('examples/ai-sdk-agent chat route (useChat re-sending the whole history)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-chat-route-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a request without a chat id instead of sharing a session', async () => {
    const route = createChatRoute({
      model: scriptedModel(() => ({ text: 'never called' })).model,
      dbPath: join(dir, 'refuse.db'),
      contextWindow: CONTEXT_WINDOW,
    });
    const response = await route.POST(
      new Request('http://localhost/api/chat', { method: 'POST', body: JSON.stringify({ messages: [] }) }),
    );
    await route.close();
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'expected { id: string, messages: UIMessage[] }' });
  });

  it('answers 26 turns within budget, survives a restart and recalls the pasted document', async () => {
    const dbPath = join(dir, 'baton.db');
    let turn = 0;
    let recalled: RecallResult | undefined;
    const turnOfCall: number[] = [];

    // The scripted model answers only from what it was actually sent: a question it cannot
    // see, or a tool result that is not in its prompt, gives a wrong answer.
    const { model, prompts } = scriptedModel(({ prompt: sent, system }): ScriptedTurn => {
      turnOfCall.push(turn);
      const step = plan(turn);
      // Baton's notices come after the conversation, as a last user message of their own.
      const prompt = conversationOf(sent);
      if (!lastUserText(prompt).includes(step.question)) return { text: 'I cannot see your question.' };
      const last = prompt.at(-1);
      if (step.tool && last?.role === 'user') return { calls: [step.tool] };
      // Its notes: in the system prompt since the last compaction, or its own write in the history.
      if (turn > NOTES_TURN && !system.includes(NOTE) && !JSON.stringify(prompt).includes(NOTE))
        return { text: 'I have lost my notes.' };
      if (step.tool?.name === 'recall') {
        const result = last?.role === 'tool' ? last.content.find((p) => p.type === 'tool-result') : undefined;
        const output = result?.type === 'tool-result' ? result.output : undefined;
        recalled = output?.type === 'json' ? (output.value as unknown as RecallResult) : undefined;
        const found = /combination (\d+-\d+-\d+)/.exec(recalled?.content ?? '');
        return { text: `${answerTo(turn)} ${found ? `The combination is ${found[1]}.` : 'Not found.'}` };
      }
      if (step.tool?.name === 'lookup') {
        const seen = JSON.stringify(last?.role === 'tool' ? last.content : []).includes(
          `Runbook: ${step.tool.input.topic}`,
        );
        return { text: seen ? answerTo(turn) : 'The lookup result did not reach me.' };
      }
      return { text: answerTo(turn) };
    });

    const appTools = {
      lookup: tool({
        description: 'Look up the runbook of a service',
        inputSchema: z.object({ topic: z.string() }),
        execute: async ({ topic }) =>
          `Runbook: ${topic}\nowner: team-${topic.length}\n${filler(7_000, topic.length)}`,
      }),
    };
    const events: BatonEvent[] = [];
    const start = () =>
      createChatRoute({
        model,
        dbPath,
        contextWindow: CONTEXT_WINDOW,
        tools: appTools,
        instructions: 'You are the on-call assistant of an operations team.',
        onEvent: (event) => events.push(event),
      });

    let route = start();
    // The browser side: useChat's own transport, posting to the route handler in-process.
    const transport = new DefaultChatTransport<UIMessage>({
      api: 'http://localhost/api/chat',
      fetch: async (input, init) => route.POST(new Request(input, init)),
    });

    const messages: UIMessage[] = [];
    const replies: string[] = [];
    const streamErrors: unknown[] = [];
    const started = performance.now();
    for (turn = 1; turn <= TURNS; turn++) {
      if (turn === RESTART_AFTER + 1) {
        // A redeploy: new process state, new connection, same file; the client keeps its history.
        await route.close();
        route = start();
      }
      messages.push({ id: `user-${turn}`, role: 'user', parts: [{ type: 'text', text: plan(turn).text }] });
      const stream = await transport.sendMessages({
        trigger: 'submit-message',
        chatId: CHAT_ID,
        messageId: undefined,
        messages,
        abortSignal: undefined,
      });
      let reply: UIMessage | undefined;
      for await (const message of readUIMessageStream<UIMessage>({
        stream,
        onError: (error) => streamErrors.push(error),
      })) {
        reply = message;
      }
      expect(reply, `turn ${turn}: no reply reached the client`).toBeDefined();
      const assistant = { ...reply!, id: reply!.id || `assistant-${turn}` };
      messages.push(assistant);
      replies.push(
        assistant.parts
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join(''),
      );
    }
    await route.close();
    const elapsed = performance.now() - started;

    // Every turn's reply reached the client, none of them an unfit step.
    expect(streamErrors).toEqual([]);
    expect(replies).toHaveLength(TURNS);
    replies.forEach((reply, i) => {
      expect(reply.startsWith(UNFIT_PREFIX), `turn ${i + 1} ended unfit: ${reply.slice(0, 200)}`).toBe(false);
      expect(reply.startsWith(answerTo(i + 1)), `turn ${i + 1}: ${reply.slice(0, 200)}`).toBe(true);
    });

    // What crossed the boundary: every prompt the model received, counted with Baton's own
    // exported counter (exact o200k BPE, uncalibrated): messages with their framing, every
    // system message (Baton's block included) and the tool definitions the model was sent.
    const counter = new TokenCounter(gptTokenizer(), 512);
    const budget = createBaton({ contextWindow: CONTEXT_WINDOW }).core.options.inputBudget;
    const streamCalls = model.doStreamCalls;
    expect(streamCalls).toHaveLength(prompts.length);
    const sizes = streamCalls.map(({ prompt, tools }) => {
      const conversation = toEntries(prompt.filter((m) => m.role !== 'system') as unknown as HostMessage[]);
      const system = prompt.flatMap((m) => (m.role === 'system' ? [m.content] : []));
      return (
        conversation.reduce((sum, entry) => sum + counter.raw(entry), 0) +
        system.reduce((sum, text) => sum + counter.rawText(text), 0) +
        counter.rawText(JSON.stringify(tools ?? []))
      );
    });
    sizes.forEach((tokens, i) => {
      expect(tokens, `model call ${i} (turn ${turnOfCall[i]}) got ${tokens} tokens`).toBeLessThanOrEqual(
        budget,
      );
    });
    // The same prompts as the test kit bills them (characters / 4 of prompt and tools JSON).
    const billed = streamCalls.map(({ prompt, tools }) =>
      Math.ceil((JSON.stringify(prompt).length + JSON.stringify(tools ?? []).length) / 4),
    );
    for (const tokens of billed) expect(tokens).toBeLessThanOrEqual(budget);
    // The document really was bigger than the budget, so this held because of Baton.
    expect(counter.rawText(DOCUMENT)).toBeGreaterThan(budget);

    // Across requests (each rebuilt from the UI history) and across the restart (the ledger
    // read back from the file), every call continues the previous call's conversation unless
    // it compacted, so a provider's prompt cache keeps hitting: every byte but the previous
    // call's trailing notices, Baton's notes block in the system messages included.
    const conversation = (prompt: LanguageModelV4Prompt) =>
      conversationOf(prompt).map((m) => JSON.stringify(m));
    const compacted = (prompt: LanguageModelV4Prompt) =>
      JSON.stringify(prompt).includes('Context was compacted');
    const firstAfterRestart = turnOfCall.indexOf(RESTART_AFTER + 1);
    expect(compacted(prompts[firstAfterRestart]!), 'the restart forgot what was compacted').toBe(false);
    for (let i = 1; i < prompts.length; i++) {
      if (compacted(prompts[i]!)) continue;
      const before = conversation(prompts[i - 1]!);
      expect(
        conversation(prompts[i]!).slice(0, before.length),
        `model call ${i} (turn ${turnOfCall[i]}) does not continue call ${i - 1}`,
      ).toEqual(before);
    }
    // The recall after the restart found the sentence from the middle of the document, and
    // what the model read is the document's own text.
    expect(recalled?.content).toContain(MARKER);
    expect(replies[RECALL_TURN - 1]).toContain('The combination is 7-41-93.');
    const excerpt = recalled!.content
      .split('\n')
      .filter((line) => !line.startsWith('===') && !line.startsWith('[…'))
      .join('\n');
    expect(excerpt.length).toBeGreaterThan(MARKER.length + 400);
    expect(plan(1).text).toContain(excerpt);
    // Paged through with recall by the ref it named, from the file alone, the whole message is
    // back byte for byte.
    const store = sqliteStore({ path: dbPath });
    const recall = createBaton({ contextWindow: CONTEXT_WINDOW, store })
      .session(CHAT_ID)
      .core.tools.find((t) => t.name === 'recall')!;
    let restored = '';
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page = (await recall.execute({ ref: recalled!.records[0]!.ref, offset })) as RecallResult;
      restored += page.content;
      offset = page.nextOffset;
    }
    await store.close();
    expect(restored).toBe(plan(1).text);

    const compactions = events.filter((e) => e.type === 'stage-completed');
    console.info(
      `[chat-route] ${TURNS} turns, ${prompts.length} model calls in ${Math.round(elapsed)} ms; ` +
        `max prompt ${Math.max(...sizes)} / ${budget} tokens counted, ${Math.max(...billed)} billed (document ${counter.rawText(DOCUMENT)}); ` +
        `stages run ${compactions.length} (${[...new Set(compactions.map((e) => (e.type === 'stage-completed' ? e.stage : '')))].join(', ')}); ` +
        `prompts with an eviction notice ${prompts.filter((p) => JSON.stringify(p).includes('Context was compacted')).length}`,
    );
  });
});

import { NOTICES_HEADING } from '@baton/core/internals';
import { anthropicWire, filler, providerRuleViolations, type WireBody } from '@baton/testing';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { InMemoryStore } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { anthropicPromptCachingMiddleware, createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BatonMiddlewareOptions, batonMiddleware } from './index.ts';

const SYSTEM = `You audit code. House rules follow.\n${filler(6_000, 3)}`;
const STEPS = 18;

type Block = Record<string, unknown>;

const readFile = tool(async ({ path }: { path: string }) => `${path}\n${filler(3_600, path.length)}`, {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

function breakpointsOf(body: WireBody): string[] {
  const found: string[] = [];
  const scan = (blocks: unknown, path: string) => {
    if (!Array.isArray(blocks)) return;
    for (const [i, b] of (blocks as Block[]).entries()) if (b.cache_control) found.push(`${path}.${i}`);
  };
  scan(body.system, 'system');
  for (const [i, m] of (body.messages as Array<{ content: unknown }>).entries())
    scan(m.content, `messages.${i}`);
  return found;
}

const isNotice = (block: Block) => typeof block.text === 'string' && block.text.startsWith(NOTICES_HEADING);

function newestBlockPath(body: WireBody): string {
  const messages = body.messages as Array<{ content: Block[] | string }>;
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i]!.content;
    if (typeof content === 'string') continue;
    const j = content.findLastIndex((b) => !isNotice(b));
    if (j >= 0) return `messages.${i}.${j}`;
  }
  return 'none';
}

async function anthropicAgent(options: Partial<BatonMiddlewareOptions> = {}, before: unknown[] = []) {
  const wire = anthropicWire({
    script: ({ index }) =>
      index < STEPS
        ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
        : { text: 'Done.' },
  });
  const model = new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test-key',
    maxTokens: 1_024,
    clientOptions: { fetch: wire.fetch },
  });
  const agent = createAgent({
    model,
    tools: [readFile],
    middleware: [...(before as []), batonMiddleware({ contextWindow: 24_000, ...options })],
    store: new InMemoryStore(),
    systemPrompt: SYSTEM,
  });
  await agent.invoke(
    { messages: [new HumanMessage('Audit the repository.')] },
    { configurable: { thread_id: 'audit-1' }, recursionLimit: 200 },
  );
  return wire.requests.map((r) => r.body);
}

describe('prompt-cache breakpoints through @langchain/anthropic', () => {
  it('marks the system block and the newest block before the notices on every request, byte-stable', async () => {
    const bodies = await anthropicAgent();
    expect(bodies).toHaveLength(STEPS + 1);
    let notices = 0;
    for (const body of bodies) {
      expect(providerRuleViolations('anthropic', body)).toEqual([]);
      expect(body.cache_control).toBeUndefined();
      expect(breakpointsOf(body)).toEqual(['system.0', newestBlockPath(body)]);
      notices += JSON.stringify(body.messages).split(NOTICES_HEADING).length - 1;
    }
    expect(notices).toBeGreaterThan(0);
    // In a tool loop the newest message is a result: the mark is on the tool_result block itself.
    const last = bodies.at(-2)!;
    const [, i, j] = newestBlockPath(last).split('.');
    const block = ((last.messages as Array<{ content: Block[] }>)[Number(i)]!.content as Block[])[Number(j)]!;
    expect(block).toMatchObject({ type: 'tool_result', cache_control: { type: 'ephemeral' } });
    // Everything up to and including the first breakpoint, identical on every request.
    expect(new Set(bodies.map((b) => JSON.stringify([b.tools, b.system]))).size).toBe(1);
  });

  it('takes over LangChain’s anthropicPromptCachingMiddleware placed before it: its ttl, no request-level mark on the notices', async () => {
    const bodies = await anthropicAgent({}, [
      anthropicPromptCachingMiddleware({ ttl: '1h', minMessagesToCache: 1 }),
    ]);
    for (const body of bodies) {
      expect(body.cache_control).toBeUndefined();
      const paths = breakpointsOf(body);
      expect(paths).toEqual(['system.0', newestBlockPath(body)]);
      const system = body.system as Block[];
      expect(system[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    }
  });

  it('counts the host’s own content-block marks: 3 of theirs leave 1 of Baton’s, on the newest message', async () => {
    const wire = anthropicWire();
    const model = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'k',
      clientOptions: { fetch: wire.fetch },
    });
    const agent = createAgent({
      model,
      tools: [],
      middleware: [batonMiddleware({ contextWindow: 200_000 })],
      store: new InMemoryStore(),
      systemPrompt: SYSTEM,
    });
    const marked = (text: string) => [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
    await agent.invoke(
      {
        messages: [
          new HumanMessage({ content: marked('First question.') }),
          new AIMessage({ content: marked('First answer.') }),
          new HumanMessage({ content: marked('Second question.') }),
          new AIMessage('Second answer.'),
          new HumanMessage('Third question.'),
        ],
      },
      { configurable: { thread_id: 'host-marks' } },
    );
    expect(breakpointsOf(wire.requests[0]!.body)).toEqual([
      'messages.0.0',
      'messages.1.0',
      'messages.2.0',
      'messages.4.0',
    ]);
  });

  it('sends none with promptCache: false', async () => {
    const bodies = await anthropicAgent({ promptCache: false });
    for (const body of bodies) expect(breakpointsOf(body)).toEqual([]);
  });
});

describe('prompt-cache key through @langchain/openai', () => {
  it('sends prompt_cache_key = the session id (the thread), none with promptCache: false', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    // A minimal Chat Completions answer (the provider wire kit speaks Anthropic only so far).
    const fetch = async (_input: unknown, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      return Response.json({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 },
      });
    };
    for (const promptCache of [true, false]) {
      const agent = createAgent({
        model: new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test-key', configuration: { fetch } }),
        tools: [readFile],
        middleware: [batonMiddleware({ contextWindow: 128_000, promptCache })],
        store: new InMemoryStore(),
        systemPrompt: SYSTEM,
      });
      await agent.invoke(
        { messages: [new HumanMessage('Hi.')] },
        { configurable: { thread_id: 'support-9' } },
      );
    }
    expect(bodies.map((b) => b.prompt_cache_key)).toEqual(['support-9', undefined]);
  });
});

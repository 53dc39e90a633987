import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { BatonOptions } from '@baton/core';
import { NOTICES_HEADING } from '@baton/core/internals';
import { anthropicWire, filler, providerRuleViolations, type WireBody } from '@baton/testing';
import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/v4';
import { createBaton } from './index.ts';

const SYSTEM = `You are a careful code reviewer. House rules follow.\n${filler(6_000, 3)}`;
const STEPS = 18;

type Block = Record<string, unknown>;

/** Where a body carries `cache_control`: 'tools.N', 'system.N', 'messages.N.M'. */
function breakpointsOf(body: WireBody): string[] {
  const found: string[] = [];
  const scan = (blocks: unknown, path: string) => {
    if (!Array.isArray(blocks)) return;
    blocks.forEach((block: Block, i) => {
      if (block.cache_control) found.push(`${path}.${i}`);
    });
  };
  scan(body.tools, 'tools');
  scan(body.system, 'system');
  for (const [i, m] of (body.messages as Array<{ content: unknown }>).entries())
    scan(m.content, `messages.${i}`);
  return found;
}

const blockAt = (body: WireBody, path: string): Block => {
  const [where, i, j] = path.split('.');
  if (where === 'messages')
    return ((body.messages as Array<{ content: Block[] }>)[Number(i)]!.content as Block[])[Number(j)]!;
  return (body[where!] as Block[])[Number(i)]!;
};

const isNotice = (block: Block) => typeof block.text === 'string' && block.text.startsWith(NOTICES_HEADING);

/** The last block before the trailing notices (the newest conversation block). */
function newestBlockPath(body: WireBody): string {
  const messages = body.messages as Array<{ content: Block[] }>;
  const last = messages.length - 1;
  const blocks = messages[last]!.content;
  const notices = blocks.filter(isNotice).length;
  const j = blocks.length - 1 - notices;
  return j >= 0 ? `messages.${last}.${j}` : `messages.${last - 1}.${messages[last - 1]!.content.length - 1}`;
}

/** The body with every `cache_control` taken out: the bytes a cache compares. */
const bare = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v)));

function loopScript({ index }: { index: number }) {
  return index < STEPS
    ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
    : { text: 'Reviewed.' };
}

const tools = {
  read_file: tool({
    description: 'Read a file of the repository.',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}\n${filler(3_600, path.length)}`,
  }),
};

async function anthropicLoop(options: Partial<BatonOptions> = {}, stream = false) {
  const wire = anthropicWire({ script: loopScript });
  const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
  const events: string[] = [];
  const session = createBaton({
    contextWindow: 24_000,
    onEvent: (e) => events.push(e.type),
    ...options,
  }).session('review-7');
  const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: session.middleware });
  const call = {
    model,
    system: SYSTEM,
    prompt: 'Review the repository.',
    tools,
    stopWhen: stepCountIs(STEPS + 1),
  };
  if (stream) await streamText(call).consumeStream();
  else await generateText(call);
  return { wire, events, bodies: wire.requests.map((r) => r.body) };
}

describe('prompt-cache breakpoints through @ai-sdk/anthropic', () => {
  it.each([
    ['generateText', false],
    ['streamText', true],
  ])(
    '%s: the end of the stable prefix and the newest message before the notices, on every request',
    async (_name, stream) => {
      const { bodies, events } = await anthropicLoop({}, stream);
      expect(bodies).toHaveLength(STEPS + 1);
      // No compaction in this loop, so every request extends the one before (minus its notices).
      expect(events).not.toContain('stage-completed');
      let noticesSeen = 0;
      for (const body of bodies) {
        expect(providerRuleViolations('anthropic', body)).toEqual([]);
        const system = body.system as Block[];
        // The stable prefix here (about 1,500 tokens of system prompt) is past Claude Sonnet 4.5's 1,024-token minimum.
        expect(breakpointsOf(body)).toEqual([`system.${system.length - 1}`, newestBlockPath(body)]);
        for (const path of breakpointsOf(body)) expect(isNotice(blockAt(body, path))).toBe(false);
        noticesSeen += (body.messages as Array<{ content: Block[] }>)
          .flatMap((m) => m.content)
          .filter(isNotice).length;
      }
      // The warning notice rode after the conversation at least once: the rule was tested on it.
      expect(noticesSeen).toBeGreaterThan(0);
      // Byte-identical up to and including the first breakpoint, call after call.
      const prefixes = new Set(bodies.map((b) => JSON.stringify([b.tools, b.system])));
      expect(prefixes.size).toBe(1);
      // And each request's messages (its notices aside) open the next one's.
      for (let i = 1; i < bodies.length; i++) {
        const before = bare(bodies[i - 1]!.messages) as Array<{ content: Block[] }>;
        const after = bare(bodies[i]!.messages) as Array<{ content: Block[] }>;
        const last = before.at(-1)!;
        last.content = last.content.filter((b) => !isNotice(b));
        expect(after.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
        expect(after[before.length - 1]!.content.slice(0, last.content.length)).toEqual(last.content);
      }
    },
  );

  it('places the notes block’s breakpoint on the block: the end of the stable prefix', async () => {
    const wire = anthropicWire();
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const session = createBaton({ contextWindow: 200_000 }).session('noted');
    await session.core.notes.write('plan', 'Step 1: read the spec.');
    const model = wrapLanguageModel({
      model: anthropic('claude-sonnet-4-5'),
      middleware: session.middleware,
    });
    await generateText({ model, system: SYSTEM, prompt: 'Go on.' });
    const body = wire.requests[0]!.body;
    const system = body.system as Block[];
    expect(system).toHaveLength(2);
    expect(String(system[1]!.text)).toContain('Step 1: read the spec.');
    expect(breakpointsOf(body)).toEqual(['system.1', 'messages.0.0']);
  });

  it.each([
    // The host's 3 elsewhere: Baton's prefix breakpoint gives way to the conversation's.
    [
      ['user1', 'assistant1', 'user2'],
      ['messages.0.0', 'messages.1.0', 'messages.2.0', 'messages.4.0'],
    ],
    // The host marked the system itself: not marked twice, so the newest message still gets one.
    [
      ['system', 'user1', 'assistant1'],
      ['system.0', 'messages.0.0', 'messages.1.0', 'messages.4.0'],
    ],
  ])(
    'counts the host’s own: a host that places 3 (%j) gets only 1 of Baton’s, 4 in all',
    async (hostMarks, expected) => {
      const wire = anthropicWire();
      const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
      const session = createBaton({ contextWindow: 200_000 }).session('host-marks');
      const model = wrapLanguageModel({
        model: anthropic('claude-sonnet-4-5'),
        middleware: session.middleware,
      });
      const mark = (name: string) =>
        hostMarks.includes(name)
          ? { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }
          : {};
      const messages: ModelMessage[] = [
        { role: 'system', content: SYSTEM, ...mark('system') },
        { role: 'user', content: 'First question.', ...mark('user1') },
        { role: 'assistant', content: 'First answer.', ...mark('assistant1') },
        { role: 'user', content: 'Second question.', ...mark('user2') },
        { role: 'assistant', content: 'Second answer.' },
        { role: 'user', content: 'Third question.' },
      ];
      const result = await generateText({ model, messages, allowSystemInMessages: true });
      const body = wire.requests[0]!.body;
      expect(breakpointsOf(body)).toEqual(expected);
      // @ai-sdk/anthropic dropped none over its cap.
      expect(JSON.stringify(result.warnings ?? [])).not.toContain('breakpoint limit');
    },
  );

  it('puts nothing with promptCache: false', async () => {
    const { bodies } = await anthropicLoop({ promptCache: false });
    for (const body of bodies) expect(breakpointsOf(body)).toEqual([]);
  });

  it('places them in rewrite mode (prepareStep) too', async () => {
    const wire = anthropicWire({ script: loopScript });
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const session = createBaton({ contextWindow: 200_000 }).session('rewrite');
    const loopTools = { ...tools, ...session.tools };
    await generateText({
      model: anthropic('claude-sonnet-4-5') as LanguageModelV4,
      system: SYSTEM,
      prompt: 'Review the repository.',
      tools: loopTools,
      prepareStep: session.prepareStepFor(loopTools),
      stopWhen: stepCountIs(4),
    });
    expect(wire.requests).toHaveLength(4);
    for (const { body } of wire.requests) {
      const system = body.system as Block[];
      expect(breakpointsOf(body)).toEqual([`system.${system.length - 1}`, newestBlockPath(body)]);
    }
  });
});

import { createAnthropic } from '@ai-sdk/anthropic';
import type { BatonOptions } from '@baton/core';
import { NOTICES_HEADING } from '@baton/core/internals';
import { anthropicWire, filler, providerRuleViolations, type WireBody } from '@baton/testing';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batonProcessor } from './index.ts';

const INSTRUCTIONS = `You audit code. House rules follow.\n${filler(6_000, 3)}`;
const STEPS = 18;

type Block = Record<string, unknown>;

const readFile = createTool({
  id: 'read_file',
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `${path}\n${filler(3_600, path.length)}`,
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
  const messages = body.messages as Array<{ content: Block[] }>;
  for (let i = messages.length - 1; i >= 0; i--) {
    const j = messages[i]!.content.findLastIndex((b) => !isNotice(b));
    if (j >= 0) return `messages.${i}.${j}`;
  }
  return 'none';
}

async function mastraLoop(options: Partial<BatonOptions> = {}) {
  const wire = anthropicWire({
    script: ({ index }) =>
      index < STEPS
        ? { calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] }
        : { text: 'Done.' },
  });
  const memory = new Memory({ storage: new LibSQLStore({ id: `cache-${Math.random()}`, url: ':memory:' }) });
  const baton = batonProcessor({ contextWindow: 24_000, memory, ...options });
  const agent = new Agent({
    id: 'auditor',
    name: 'auditor',
    instructions: INSTRUCTIONS,
    // Mastra types its V4 model apart from the AI SDK's; at run time it takes @ai-sdk/anthropic's as is.
    model: createAnthropic({ apiKey: 'test-key', fetch: wire.fetch })('claude-sonnet-4-5') as never,
    tools: { read_file: readFile },
    memory,
    ...baton.lists,
  });
  await agent.generate('Audit the repository.', {
    memory: { thread: 'audit-1', resource: 'r' },
    maxSteps: STEPS + 1,
    modelSettings: { maxOutputTokens: 1_024 },
  });
  return wire.requests.map((r) => r.body);
}

describe('prompt-cache breakpoints through a Mastra Agent on @ai-sdk/anthropic (processLLMRequest)', () => {
  it('marks the last system block and the newest block before the notices on every request, byte-stable', async () => {
    const bodies = await mastraLoop();
    expect(bodies).toHaveLength(STEPS + 1);
    let notices = 0;
    for (const body of bodies) {
      expect(providerRuleViolations('anthropic', body)).toEqual([]);
      const system = body.system as Block[];
      expect(breakpointsOf(body)).toEqual([`system.${system.length - 1}`, newestBlockPath(body)]);
      notices += JSON.stringify(body.messages).split(NOTICES_HEADING).length - 1;
    }
    expect(notices).toBeGreaterThan(0);
    expect(new Set(bodies.map((b) => JSON.stringify([b.tools, b.system]))).size).toBe(1);
  });

  it('sends none with promptCache: false', async () => {
    const bodies = await mastraLoop({ promptCache: false });
    for (const body of bodies) expect(breakpointsOf(body)).toEqual([]);
  });
});

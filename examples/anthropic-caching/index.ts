/**
 * Baton's prompt-cache breakpoints on `@ai-sdk/anthropic`. Anthropic caches a prompt only up
 * to the blocks the client marks with `cache_control`; the middleware marks the end of the
 * stable prefix (system prompt and notes block) and the newest message before its trailing
 * notices, on every request, within the 4 Anthropic allows.
 *
 * Offline by default: `anthropicWire` from `@baton/testing` answers as the Messages API (a
 * scripted tool loop) and records every request body; each request is then billed by a small
 * breakpoint cache (below) to show what the marks buy. With ANTHROPIC_API_KEY set, the same
 * loop runs against claude-sonnet-4-5 and prints the usage Anthropic reports.
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-anthropic-caching start
 *   npx -y pnpm@12.4.2 --filter @baton/example-anthropic-caching start --no-cache   # promptCache: false
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createBaton } from '@baton/ai-sdk';
import { anthropicCount, anthropicWire, filler, type WireBody } from '@baton/testing';
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';

const STEPS = 30;
/** Anthropic looks for an earlier cache entry at most this many blocks back from a breakpoint. */
const LOOKBACK_BLOCKS = 20;

type Block = Record<string, unknown>;
type Position = { system: number } | { message: number; block: number };

/** Every cacheable block of a body, in the order Anthropic reads them (system, then messages). */
function positionsOf(body: WireBody): Position[] {
  const system = Array.isArray(body.system) ? body.system.map((_, i) => ({ system: i })) : [];
  const messages = (body.messages as Array<{ content: Block[] | string }>).flatMap((m, i) =>
    typeof m.content === 'string'
      ? [{ message: i, block: 0 }]
      : m.content.map((_, j) => ({ message: i, block: j })),
  );
  return [...system, ...messages];
}

/** The body cut after one block, without its cache_control marks: what a cache entry holds. */
function prefixAt(body: WireBody, at: Position): WireBody {
  const bare = JSON.parse(
    JSON.stringify(body, (k, v) => (k === 'cache_control' ? undefined : v)),
  ) as WireBody;
  const system = (bare.system ?? []) as Block[];
  const messages = bare.messages as Array<{ role: string; content: Block[] | string }>;
  if ('system' in at) return { tools: bare.tools, system: system.slice(0, at.system + 1), messages: [] };
  const last = messages[at.message]!;
  const content = typeof last.content === 'string' ? last.content : last.content.slice(0, at.block + 1);
  return { tools: bare.tools, system, messages: [...messages.slice(0, at.message), { ...last, content }] };
}

const marked = (body: WireBody, at: Position): boolean => {
  const messages = body.messages as Array<{ content: Block[] | string }>;
  const block =
    'system' in at
      ? (body.system as Block[])[at.system]
      : (messages[at.message]!.content as Block[])[at.block];
  return typeof block === 'object' && block !== null && 'cache_control' in block;
};

/**
 * A breakpoint cache as Anthropic describes it: each marked block writes the prefix up to it;
 * a later request reads the longest entry it finds at a marked block or up to 20 blocks before
 * one. No time passes in this example, so nothing expires.
 */
export function breakpointCache() {
  const entries = new Set<string>();
  return function bill(body: WireBody) {
    const positions = positionsOf(body);
    const marks = positions.flatMap((at, index) => (marked(body, at) ? [index] : []));
    let read = 0;
    for (const mark of marks)
      for (let index = mark; index >= Math.max(0, mark - LOOKBACK_BLOCKS); index--) {
        const prefix = prefixAt(body, positions[index]!);
        if (entries.has(JSON.stringify(prefix))) {
          read = Math.max(read, anthropicCount(prefix));
          break;
        }
      }
    for (const mark of marks) entries.add(JSON.stringify(prefixAt(body, positions[mark]!)));
    const input = anthropicCount(body);
    const lastMark = marks.at(-1);
    const cached = lastMark === undefined ? 0 : anthropicCount(prefixAt(body, positions[lastMark]!));
    return { input, read, written: Math.max(0, cached - read), marks: marks.length };
  };
}

/** Runs the loop; returns each request's breakpoints and what the cache read of it. */
export async function runExample({
  promptCache = true,
  apiKey,
}: {
  promptCache?: boolean;
  apiKey?: string;
} = {}) {
  const wire = anthropicWire({
    // Step 10 reads 12 files at once: 24 blocks in one step, past Anthropic's 20-block look-back.
    script: ({ index }) =>
      index === 10
        ? {
            calls: Array.from({ length: 12 }, (_, i) => ({
              name: 'read_file',
              input: { path: `test/t${i}.ts` },
            })),
          }
        : index < STEPS
          ? { calls: [{ name: 'read_file', input: { path: `src/module_${index}.ts` } }] }
          : { text: 'Audit done: module_17.ts logs the API key.' },
  });
  const anthropic = createAnthropic(apiKey ? { apiKey } : { apiKey: 'offline', fetch: wire.fetch });
  const session = createBaton({ model: 'claude-sonnet-4-5', contextWindow: 200_000, promptCache }).session(
    'audit-1',
  );
  const result = streamText({
    model: wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: session.middleware }),
    system: `You audit TypeScript repositories for leaked secrets. House rules:\n${filler(8_000, 1)}`,
    prompt: 'Audit src/: read every module and report any leaked secret.',
    tools: {
      read_file: tool({
        description: 'Read a file of the repository',
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => `// ${path}\n${filler(2_000, path.length)}`,
      }),
    },
    stopWhen: stepCountIs(STEPS + 1),
  });
  await result.consumeStream();
  const bill = breakpointCache();
  const requests = wire.requests.map((request) => bill(request.body));
  const input = requests.reduce((sum, r) => sum + r.input, 0);
  const read = requests.reduce((sum, r) => sum + r.read, 0);
  return { requests, input, read, readShare: input === 0 ? 0 : read / input, usage: await result.totalUsage };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  const run = await runExample({
    promptCache: !process.argv.includes('--no-cache'),
    ...(apiKey ? { apiKey } : {}),
  });
  if (apiKey) {
    console.log('usage reported by Anthropic:', run.usage);
  } else {
    for (const [i, r] of run.requests.entries())
      console.log(
        `request ${String(i + 1).padStart(2)}: ${r.marks} breakpoints, ${r.input} input tokens, ${r.read} read from cache, ${r.written} written`,
      );
    console.log(`${(run.readShare * 100).toFixed(1)}% of ${run.input} input tokens read from the cache`);
  }
}

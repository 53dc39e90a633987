/**
 * A Mastra Agent with BatonProcessor, offline: Mastra's own mock model plays an on-call agent
 * that reads 30 log pages, keeps its progress in working memory (Baton's notes), gets its
 * context compacted, recalls the evicted error line and answers. Mastra's storage is LibSQL
 * on a local file, and Baton's ledger and archive live in it too (the thread-state domain).
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-mastra-agent start
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batonProcessor, mastraMemoryStore } from '@baton/mastra';
import { Agent } from '@mastra/core/agent';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { z } from 'zod';

const PAGES = 30;
const dir = mkdtempSync(join(tmpdir(), 'baton-mastra-'));

const readLog = createTool({
  id: 'read_log',
  description: 'Read one page of the logs',
  inputSchema: z.object({ page: z.number() }),
  execute: async ({ page }) =>
    Array.from({ length: 50 }, (_, i) =>
      page === 7 && i === 20
        ? 'ERROR payment-gateway: retry storm after deploy 4f1e9ab'
        : `INFO request ${page * 100 + i} ok`,
    ).join('\n'),
});

// The "model": decides from exactly the prompt it is sent, as a real one would.
type Prompt = Array<{ role: string; content: unknown }>;
let call = 0;
function decide(prompt: Prompt) {
  const system = prompt
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  const last = JSON.stringify(prompt.at(-1)?.content ?? '');
  const tool = (toolName: string, input: unknown) => ({
    content: [{ type: 'tool-call', toolCallId: `c${call++}`, toolName, input: JSON.stringify(input) }],
    finishReason: 'tool-calls',
  });
  if (last.includes('"toolName":"recall"'))
    return {
      content: [{ type: 'text', text: `Root cause: ${/ERROR payment-gateway[^\\"]*/.exec(last)?.[0]}` }],
      finishReason: 'stop',
    };
  const read = Number(/pages read: (\d+)/.exec(system)?.[1] ?? 0);
  if (read >= PAGES) return tool('recall', { query: 'ERROR payment-gateway' });
  if (last.includes('"toolName":"read_log"'))
    return tool('notes', { action: 'write', section: 'progress', text: `pages read: ${read + 1}` });
  return tool('read_log', { page: read });
}
const usage = { inputTokens: undefined, outputTokens: 10, totalTokens: undefined };
const model = new MastraLanguageModelV2Mock({
  doGenerate: (async (options: { prompt: Prompt }) => ({
    ...decide(options.prompt),
    usage,
    warnings: [],
  })) as never,
});

const memory = new Memory({
  storage: new LibSQLStore({ id: 'example', url: `file:${join(dir, 'mastra.db')}` }),
  options: { workingMemory: { enabled: true, scope: 'thread' } },
});
const baton = batonProcessor({
  contextWindow: 8_000,
  memory, // ledger, state and archive go in the Memory's own storage (mastra.db): no second database
  onEvent: (e) => {
    if (e.type === 'stage-completed')
      console.log(`[baton] ${e.stage}: ${e.tokensBefore} -> ${e.tokensAfter} tokens`);
  },
});

const agent = new Agent({
  id: 'oncall',
  name: 'On-call',
  instructions: 'You investigate incidents from logs.',
  model,
  tools: { read_log: readLog },
  memory,
  ...baton.lists, // the same processor as input, output and error processor
});

const result = await agent.generate('Find the cause of last night’s payment failures.', {
  memory: { thread: 'incident-7', resource: 'oncall-team' },
  maxSteps: 100,
});
const stored = await memory.recall({ threadId: 'incident-7', perPage: false });
// A conversation that no longer fits ends with a plain-words reply instead of an error.
const unfit = baton.unfitOf(result);
if (unfit) console.log(`Context full (${unfit.reason}); checkpoint ${unfit.checkpointRef}`);
console.log(`\nAnswer: ${result.text}`);
console.log(`Working memory: ${JSON.stringify(await memory.getWorkingMemory({ threadId: 'incident-7' }))}`);
console.log(`Mastra stored ${stored.messages.length} messages, complete (view mode). Files in ${dir}`);
const archived = await mastraMemoryStore(memory).rangeArchive('incident-7', 0, Number.MAX_SAFE_INTEGER);
console.log(`Baton's archive in the same database: ${archived.length} records`);

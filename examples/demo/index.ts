/**
 * The main demo: a long coding-agent task through the real AI SDK adapter, offline, with the
 * embedded defaults: SQLite store, extractive summaries, exact token counts. A scripted
 * MockLanguageModelV4 plays the model and decides every step from exactly the prompt Baton
 * sends. The run shows each feature in turn:
 * - the pinned skill document
 * - the warning, and the notes the agent writes when it sees it
 * - probes at closed units
 * - the compact the agent asks for
 * - the escalating ladder and its eviction notices
 * - recall of an evicted line
 * - degrade of a result too large to fit
 * It prints a timeline and writes an HTML report of the same conversation: Baton against no
 * compaction, fixed-interval compaction and delete-oldest.
 *
 *   npx -y pnpm@12.4.2 install && npx -y pnpm@12.4.2 demo
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider';
import { type BatonEvent, createBaton, RUBRICS, sqliteStore, toEntries } from '@baton/ai-sdk';
import { renderReport, replay } from '@baton/cli';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

const FILES = 36;
const SECRET = 'the timezone offset is applied twice in parseOffset() at src/dates/offset.ts:88';
const reportPath = resolve(process.env.BATON_DEMO_REPORT ?? 'demo-report.html');

// ---------------------------------------------------------------------------------------------
// The task's tools: a skill document (pinned), files to read, tests, and one huge log.

const SKILL = [
  'SKILL date-bugs v3: how to fix date handling bugs',
  ...Array.from(
    { length: 40 },
    (_, i) =>
      `rule ${i + 1}: check offsets, DST and leap seconds in case ${i + 1}; never round-trip through local time`,
  ),
].join('\n');
const source = (n: number) =>
  [
    `// src/dates/module_${n}.ts`,
    ...Array.from(
      { length: 70 },
      (_, l) => `export const v${l} = shift(${n}, ${l}); // ${n === 3 && l === 40 ? SECRET : 'ok'}`,
    ),
  ].join('\n');
const hugeLog = Array.from(
  { length: 9_000 },
  (_, i) => `${i}: request ${(i * 7919) % 100_003} tz=+${i % 14}:00 ok`,
).join('\n');

// ---------------------------------------------------------------------------------------------
// The model: a deterministic agent that reads exactly what Baton sends.

type Turn = { say?: string; calls?: Array<[string, unknown]>; text?: string };
const text = (prompt: LanguageModelV4Prompt) => JSON.stringify(prompt);
const systemOf = (prompt: LanguageModelV4Prompt) =>
  prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
/** Baton's notices of this call: its last message, after the conversation (read last, never cached). */
const noticesOf = (prompt: LanguageModelV4Prompt) => {
  const last = prompt.at(-1);
  return last?.role === 'user' && text([last]).includes('## Context notices') ? text([last]) : '';
};
let agentStep = 0;
let readCount = 0;
let asked: 'none' | 'compact' | 'recall' = 'none';

function decide(prompt: LanguageModelV4Prompt): Turn {
  const all = text(prompt);
  const notices = noticesOf(prompt);
  const conversation = notices ? prompt.slice(0, -1) : prompt;
  const last = text(conversation.slice(-1));
  const system = systemOf(prompt);
  // Baton's probe: the model judges its own trajectory (coding rubric) with structured output.
  if (last.includes('[baton] Context check')) {
    const closed = /tests: \d+ passed/.test(text(prompt.slice(-4)));
    const criteria = RUBRICS.coding.criteria.map((c) => ({
      id: c.id,
      answer: closed || c.id !== 'CYCLE-CLOSED' ? 'Y' : 'N',
      evidence: closed ? 'the last test run passed' : 'an edit is not tested yet',
    }));
    return { text: JSON.stringify({ criteria, decision: closed ? 'COMPRESS' : 'CONTINUE' }) };
  }
  const step = agentStep++;
  if (notices.includes('Context is at'))
    line('notice  warning: the context is filling up (tokens left until compaction, what to do)');
  if (notices.includes('Context was compacted'))
    line('notice  eviction: which ranges went, and how to recall them');
  if (notices.includes('head/tail previews'))
    line('notice  degrade: a fresh result too large to fit, shown as head/tail with a recall ref');
  if (step === 0)
    return { say: 'Loading the date-bugs skill first.', calls: [['load_skill', { name: 'date-bugs' }]] };
  // Its notes: in the system prompt since the last compaction, or its own write in the history.
  if (
    notices.includes('Context is at') &&
    !system.includes('### progress') &&
    !all.includes('"section":"progress"')
  )
    return {
      say: 'Warned: saving my progress before anything is evicted.',
      calls: [
        [
          'notes',
          {
            action: 'write',
            section: 'progress',
            text: `read ${readCount} of ${FILES} files; suspect: offsets`,
          },
        ],
      ],
    };
  if (readCount === 20 && asked === 'none') {
    asked = 'compact';
    return {
      say: 'First half reviewed; compacting at this boundary.',
      calls: [['compact', { instruction: 'keep which files were read and any suspect lines' }]],
    };
  }
  if (readCount === 28 && !all.includes('head/tail previews') && !all.includes('"fetch_logs"'))
    return { calls: [['fetch_logs', { service: 'api' }]] };
  if (readCount >= FILES) {
    if (asked !== 'recall' && !all.includes(SECRET)) {
      asked = 'recall';
      return {
        say: 'The suspect line from module 3 was evicted; recalling it.',
        calls: [['recall', { query: 'applied twice' }]],
      };
    }
    if (!/tests: \d+ passed/.test(all.slice(-2_000))) return { calls: [['run_tests', {}]] };
    return { text: `Fixed: ${SECRET}. All tests pass.` };
  }
  if (readCount > 0 && readCount % 6 === 0 && !last.includes('run_tests'))
    return { calls: [['run_tests', {}]] };
  const n = readCount++;
  return { calls: [['read_file', { path: `src/dates/module_${n}.ts` }]] };
}

const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }: LanguageModelV4CallOptions) => {
    const turn = decide(prompt);
    const content: LanguageModelV4Content[] = [];
    if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
    if (turn.say) content.push({ type: 'text', text: turn.say });
    for (const [i, [name, input]] of (turn.calls ?? []).entries())
      content.push({
        type: 'tool-call',
        toolCallId: `call_${agentStep}_${i}`,
        toolName: name,
        input: JSON.stringify(input),
      });
    return {
      content,
      finishReason: { unified: turn.calls ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: {
          total: Math.ceil(text(prompt).length / 4),
          noCache: undefined,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: 30, text: 30, reasoning: undefined },
      },
      warnings: [],
    };
  },
});

// ---------------------------------------------------------------------------------------------
// Baton, with the embedded defaults, and a timeline of what it does.

const dir = mkdtempSync(join(tmpdir(), 'baton-demo-'));
const line = (what: string) => console.log(`  step ${String(agentStep).padStart(3)}  ${what}`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
function timeline(event: BatonEvent) {
  if (event.type === 'stage-completed')
    line(
      `ladder  ${event.stage}: ${fmt(event.tokensBefore)} → ${fmt(event.tokensAfter)} tokens (${event.entriesAffected} messages${event.syntheticAffected > 0 ? `, ${event.syntheticAffected} earlier summaries/digests` : ''})`,
    );
  else if (event.type === 'probe-decided')
    line(`probe   ${event.decision} (${event.criteria.map((c) => `${c.id}=${c.answer}`).join(' ')})`);
  else if (event.type === 'self-compacted' && event.early)
    line(
      `probe   compacted before the backstop: ${fmt(event.tokensBefore)} → ${fmt(event.tokensAfter)} tokens`,
    );
}
const baton = createBaton({
  contextWindow: 16_000,
  pinnedTools: ['load_skill'],
  store: sqliteStore({ path: join(dir, 'baton.db') }),
  selfCompact: {
    rubric: 'coding',
    probeEvery: 3,
    minSteps: 8,
    minTokens: 4_000,
    cooldownSteps: 6,
    maxCompactions: 2,
    modelSummaries: false,
  },
  onEvent: timeline,
});
const session = baton.session('date-bug');

console.log(
  `Baton demo: a ${FILES}-file coding task on a 16k window (input budget ${fmt(baton.core.options.inputBudget)} tokens)\n`,
);
const prompt =
  'OPENING REQUEST: times from the API are off by hours. Read src/dates, find the bug, fix it, make the tests pass.';
const result = await generateText({
  model: wrapLanguageModel({ model, middleware: session.middleware }),
  system: 'You are a careful coding agent.',
  prompt,
  tools: {
    ...session.tools,
    load_skill: tool({
      description: 'Load a skill document',
      inputSchema: z.object({ name: z.string() }),
      execute: async () => {
        line('tool    load_skill: pinned, so never folded, summarized or dropped');
        return SKILL;
      },
    }),
    read_file: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => source(Number(/(\d+)/.exec(path)?.[1] ?? 0)),
    }),
    run_tests: tool({
      description: 'Run the tests',
      inputSchema: z.object({}),
      execute: async () => `tests: ${40 + agentStep} passed, 0 failed`,
    }),
    fetch_logs: tool({
      description: 'Fetch service logs',
      inputSchema: z.object({ service: z.string() }),
      execute: async () => {
        line(`tool    fetch_logs returned ${fmt(hugeLog.length)} characters, more than the whole window`);
        return hugeLog;
      },
    }),
  },
  stopWhen: stepCountIs(120),
  onStepFinish: ({ toolCalls }) => {
    for (const call of toolCalls)
      if (['notes', 'compact', 'recall'].includes(call.toolName))
        line(`agent   ${call.toolName}(${JSON.stringify(call.input)})`);
  },
});

console.log(`\nAnswer after ${result.steps.length} steps: ${result.text}`);
const history: ModelMessage[] = [
  { role: 'system', content: 'You are a careful coding agent.' },
  { role: 'user', content: prompt },
  ...result.responseMessages,
];
const replayed = await replay(toEntries(history as never), {
  contextWindow: 16_000,
  pinned: ['load_skill'],
  interval: 10,
});
mkdirSync(resolve(reportPath, '..'), { recursive: true });
writeFileSync(
  reportPath,
  renderReport(replayed, {
    file: 'demo task',
    format: 'AI SDK generateText run',
    settings: 'window 16,000 · pinned load_skill · SQLite store',
  }),
);
console.log('\nThe same conversation under four policies (input tokens per model call):');
for (const p of replayed.policies)
  console.log(
    `  ${p.name.padEnd(15)} peak ${fmt(p.peak).padStart(7)}  over budget ${String(p.overBudget).padStart(3)}  opening request lost ${String(p.openingLost).padStart(3)}  billed ${fmt(p.billed)}`,
  );
console.log(
  `\nArchive: ${(await session.core.archive.range(0, 1e9)).length} entries, recallable verbatim. Report: ${reportPath}`,
);

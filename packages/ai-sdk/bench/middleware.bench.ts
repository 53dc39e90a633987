/**
 * Per-call overhead of the Baton middleware at 1,000 messages, against a plain wrapped model
 * and against the AI SDK cookbook's `prepareStep` + `pruneMessages` recipe, in one run.
 * Run from the repository root: `pnpm bench`.
 */
import type { LanguageModelV4GenerateResult, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { generateText, type ModelMessage, pruneMessages, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createBaton, createEntry, type HostMessage, toEntries } from '../src/index.ts';

const MESSAGES = 1_000;
const RUNS = 40;

function history(size: number, variant: number): ModelMessage[] {
  const messages: ModelMessage[] = [
    { role: 'user', content: 'Audit the repository and fix the failing tests.' },
  ];
  for (let i = 0; messages.length < size - 1; i++) {
    const id = `call_${i}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}: checking module ${i % 37}.` },
        {
          type: 'tool-call',
          toolCallId: id,
          toolName: 'read_file',
          input: { path: `src/module_${i % 37}.ts` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: {
            type: 'text',
            value: Array.from({ length: 40 }, (_, l) => `line ${l}: const v${l} = f(${i}, ${l});`).join('\n'),
          },
        },
      ],
    });
  }
  messages.push({ role: 'user', content: `new question ${variant}` });
  return messages;
}

const result: LanguageModelV4GenerateResult = {
  content: [{ type: 'text', text: 'ok' }],
  finishReason: { unified: 'stop', raw: undefined },
  usage: {
    inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  },
  warnings: [],
};
const mock = () => new MockLanguageModelV4({ doGenerate: async () => result });
const identity: LanguageModelV4Middleware = { specificationVersion: 'v4' };

async function time(label: string, call: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await call(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await call(i);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return {
    label,
    median: samples[Math.floor(samples.length / 2)]!,
    p95: samples[Math.floor(samples.length * 0.95)]!,
  };
}

const rows = [];
rows.push(
  await time('plain model (no middleware)', (i) =>
    generateText({ model: mock(), messages: history(MESSAGES, i) }),
  ),
);
rows.push(
  await time('wrapped model, identity middleware', (i) =>
    generateText({
      model: wrapLanguageModel({ model: mock(), middleware: identity }),
      messages: history(MESSAGES, i),
    }),
  ),
);
const cookbook = await time('cookbook: prepareStep + pruneMessages (chars/4 estimate)', (i) =>
  generateText({
    model: mock(),
    messages: history(MESSAGES, i),
    prepareStep: ({ messages }) => {
      const estimate = JSON.stringify(messages).length / 4;
      return estimate > 96_000
        ? { messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages' }) }
        : {};
    },
  }),
);
rows.push(cookbook);
// Baton on a window the history fits in (pure overhead), warm: one new message per call.
const fits = createBaton({ contextWindow: 2_000_000 }).session('bench');
const batonFits = wrapLanguageModel({ model: mock(), middleware: fits.middleware });
rows.push(
  await time('Baton middleware, history fits (warm)', (i) =>
    generateText({ model: batonFits, messages: history(MESSAGES, i) }),
  ),
);
// Baton compacting: the 1,000 messages exceed a 128k window, the ledger is re-applied every call.
const compacting = createBaton({ model: 'gpt-4o' }).session('bench-compacting');
const batonCompacting = wrapLanguageModel({ model: mock(), middleware: compacting.middleware });
rows.push(
  await time('Baton middleware, gpt-4o window, compacting (warm)', (i) =>
    generateText({ model: batonCompacting, messages: history(MESSAGES, i) }),
  ),
);

const base = rows[1]!.median;
console.log(
  `# @baton/ai-sdk: per-call overhead at ${MESSAGES.toLocaleString('en-US')} messages (Node ${process.version}, ${new Date().toISOString()})\n`,
);
console.log('| variant | median | p95 | vs wrapped model |');
console.log('|---|---:|---:|---:|');
for (const row of rows)
  console.log(
    `| ${row.label} | ${row.median.toFixed(2)} ms | ${row.p95.toFixed(2)} ms | ${(row.median / base).toFixed(2)}x |`,
  );

// What the cookbook's estimate misses on the same history (and on CJK text).
const exact = await createBaton({ contextWindow: 2_000_000 })
  .core.session('count')
  .prepare({ entries: toEntries(history(MESSAGES, 0) as HostMessage[]) });
const estimate = Math.round(JSON.stringify(history(MESSAGES, 0)).length / 4);
const cjk = '上下文窗口管理让长时间运行的智能体在压缩之后仍然知道自己丢失了什么，并且可以找回。'.repeat(200);
const cjkExact = await createBaton({ contextWindow: 2_000_000 })
  .core.session('cjk')
  .prepare({ entries: [createEntry(0, 'user', cjk)] });
const off = (estimated: number, real: number) => `${(((estimated - real) / real) * 100).toFixed(0)}%`;
console.log(`\n| text | exact (o200k) | JSON.stringify(messages).length / 4 | error |`);
console.log('|---|---:|---:|---:|');
console.log(
  `| the ${MESSAGES.toLocaleString('en-US')}-message history | ${exact.tokens.before.toLocaleString('en-US')} | ${estimate.toLocaleString('en-US')} | ${off(estimate, exact.tokens.before)} |`,
);
console.log(
  `| ${cjk.length.toLocaleString('en-US')} chars of Chinese | ${cjkExact.tokens.before.toLocaleString('en-US')} | ${Math.round(JSON.stringify(cjk).length / 4).toLocaleString('en-US')} | ${off(JSON.stringify(cjk).length / 4, cjkExact.tokens.before)} |`,
);

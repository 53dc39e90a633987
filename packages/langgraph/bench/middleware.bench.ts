/**
 * LangChain v1 context middleware side by side, on the same histories, in one run:
 * per-call overhead at 1,000 and 5,000 messages, and on the real transcripts in
 * ../shared/corpus replayed as agent loops: how often the model was sent more than the
 * budget, and how many orphaned tool messages reached it. Run: `pnpm bench`.
 */
import { gptTokenizer, TokenCounter } from '@baton/core';
import { pairingViolation } from '@baton/core/internals';
import {
  BENCH_BUDGET,
  BENCH_WINDOW,
  benchCorpus,
  generatedHistory,
  toLangChainMessages,
} from '@baton/test-support/bench-histories.ts';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import {
  ClearToolUsesEdit,
  contextEditingMiddleware,
  createAgent,
  fakeModel,
  summarizationMiddleware,
} from 'langchain';
import { batonMiddleware, toEntries } from '../src/index.ts';

const WINDOW = BENCH_WINDOW;
const BUDGET = BENCH_BUDGET;
const counter = new TokenCounter(gptTokenizer(), 512);

const transcripts = benchCorpus();
const toLangChain = toLangChainMessages;
/** A history of n messages from the transcripts (unique tool-call ids), ending on a user message. */
const history = (n: number): BaseMessage[] => toLangChainMessages(generatedHistory(transcripts, n));

type Variant = { name: string; middleware: () => unknown[] };
const summarizerModel = () => {
  const model = fakeModel();
  for (let i = 0; i < 10_000; i++) model.respond(new AIMessage('Summary of the conversation so far.'));
  return model;
};
const variants: Variant[] = [
  { name: 'no middleware', middleware: () => [] },
  {
    name: 'summarizationMiddleware (trigger 80% of budget, keep 20 messages)',
    middleware: () => [
      summarizationMiddleware({
        model: summarizerModel(),
        trigger: { tokens: BUDGET * 0.8 },
        keep: { messages: 20 },
      }),
    ],
  },
  {
    name: 'contextEditingMiddleware (default ClearToolUsesEdit)',
    middleware: () => [contextEditingMiddleware({ edits: [new ClearToolUsesEdit()] })],
  },
  { name: 'batonMiddleware', middleware: () => [batonMiddleware({ contextWindow: WINDOW })] },
];

/** One agent step: the fake model records what it was sent and answers. */
async function run(variant: Variant, messages: BaseMessage[], middleware: unknown[], seen: BaseMessage[][]) {
  const model = fakeModel();
  model.respond((sent: BaseMessage[]) => {
    seen.push(sent);
    return new AIMessage('ok');
  });
  const agent = createAgent({ model, tools: [], middleware: middleware as never[] });
  await agent.invoke({ messages }, { configurable: { thread_id: variant.name } });
}

console.log(
  `# @baton/langgraph vs LangChain's context middleware (Node ${process.version}, ${new Date().toISOString()})\n`,
);
console.log(
  `Window ${WINDOW.toLocaleString('en-US')} tokens, input budget ${BUDGET.toLocaleString('en-US')}.\n`,
);
console.log('| variant | 1,000 messages: median per call | 5,000 messages: median per call |');
console.log('|---|---:|---:|');
for (const variant of variants) {
  const cells: string[] = [];
  for (const n of [1_000, 5_000]) {
    const messages = history(n);
    const middleware = variant.middleware();
    const samples: number[] = [];
    const runs = n >= 5_000 ? 5 : 12;
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await run(variant, [...messages.slice(0, -1), new HumanMessage(`question ${i}`)], middleware, []);
      samples.push(performance.now() - start);
    }
    samples.sort((a, b) => a - b);
    cells.push(`${samples[Math.floor(samples.length / 2)]!.toFixed(1)} ms`);
  }
  console.log(`| ${variant.name} | ${cells.join(' | ')} |`);
}

console.log(
  '\nReplaying the five real transcripts as agent loops (one model call before every assistant message):\n',
);
console.log(
  '| variant | model calls | over the budget | largest prompt (tokens) | calls with an orphaned tool message |',
);
console.log('|---|---:|---:|---:|---:|');
for (const variant of variants) {
  let calls = 0;
  let over = 0;
  let largest = 0;
  let orphaned = 0;
  for (const transcript of transcripts) {
    const messages = toLangChain(transcript.messages);
    const middleware = variant.middleware();
    for (let i = 1; i < messages.length; i++) {
      if (messages[i]!.type !== 'ai') continue;
      const seen: BaseMessage[][] = [];
      await run(variant, messages.slice(0, i), middleware, seen);
      for (const sent of seen) {
        calls++;
        const entries = toEntries(sent);
        const tokens = entries.reduce((sum, e) => sum + counter.raw(e), 0);
        largest = Math.max(largest, tokens);
        if (tokens > BUDGET) over++;
        if (pairingViolation(entries.filter((e) => e.role !== 'system'))) orphaned++;
      }
    }
  }
  console.log(`| ${variant.name} | ${calls} | ${over} | ${largest.toLocaleString('en-US')} | ${orphaned} |`);
}

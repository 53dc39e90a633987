/**
 * Mastra's context processors side by side, on the same histories, in one run. Each runs at
 * the stage Mastra runs it inside an agent (`processLLMRequest` on the provider-shaped prompt):
 * per-call overhead at 1,000 and 5,000 messages; and on the real transcripts in
 * ../shared/corpus replayed as agent loops (one model call before every assistant message):
 * the token-count error of each processor's estimate against exact BPE counts, how often the
 * model would have been sent more than the budget, and how many prompts carried an orphaned
 * tool result. Run: `pnpm bench`.
 */
import { gptTokenizer, TokenCounter, tiktokenTokenizer } from '@baton/core';
import { type PromptMessage, pairingViolation, promptToEntries } from '@baton/core/internals';
import {
  BENCH_BUDGET,
  BENCH_WINDOW,
  benchCorpus,
  generatedHistory,
  referenceTokens,
  toModelPrompt,
} from '@baton/test-support/bench-histories.ts';
import { TokenLimiterProcessor, ToolCallFilter } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { batonProcessor } from '../src/index.ts';

const WINDOW = BENCH_WINDOW;
const BUDGET = BENCH_BUDGET;
const counter = new TokenCounter(gptTokenizer(), 512);

const transcripts = benchCorpus();

const promptOf = toModelPrompt;
/** A history of n messages from the transcripts as the provider-shaped prompt, ending on a new user message. */
const history = (n: number): PromptMessage[] => toModelPrompt(generatedHistory(transcripts, n));

interface Variant {
  name: string;
  /** A fresh processor chain for one conversation; returns the prompt the model would get. */
  create(): (prompt: PromptMessage[], state: Record<string, unknown>) => Promise<PromptMessage[]>;
  /** The variant's own token estimate for a prompt, when it has one. */
  estimate?: (prompt: PromptMessage[]) => Promise<number>;
}

type LLMRequest = { processLLMRequest(args: never): unknown };
let threads = 0;
async function viaProcessor(
  processor: LLMRequest,
  prompt: PromptMessage[],
  state: Record<string, unknown>,
  requestContext?: RequestContext,
) {
  const abort = (reason?: string): never => {
    throw new Error(reason ?? 'aborted');
  };
  const result = (await processor.processLLMRequest({
    prompt,
    state,
    ...(requestContext ? { requestContext } : {}),
    abort,
    stepNumber: 0,
    steps: [],
    retryCount: 0,
  } as never)) as { prompt?: PromptMessage[] } | undefined;
  return result?.prompt ?? prompt;
}

const limiterEstimate = new TokenLimiterProcessor({ limit: BUDGET }) as unknown as {
  countPromptMessageTokens(message: PromptMessage): number;
};

const variants: Variant[] = [
  { name: 'no processor', create: () => async (prompt) => prompt },
  {
    name: '`TokenLimiterProcessor` (limit = budget)',
    create: () => {
      const limiter = new TokenLimiterProcessor({ limit: BUDGET });
      return (prompt, state) => viaProcessor(limiter, prompt, state);
    },
    // Its own total: the per-message estimates plus its per-conversation constant.
    estimate: async (prompt) =>
      24 + prompt.reduce((sum, m) => sum + limiterEstimate.countPromptMessageTokens(m), 0),
  },
  {
    name: '`ToolCallFilter` (default: drop earlier tool traffic)',
    create: () => {
      const filter = new ToolCallFilter();
      return (prompt, state) => viaProcessor(filter, prompt, state);
    },
  },
  {
    name: '`BatonProcessor`',
    create: () => {
      const baton = batonProcessor({ contextWindow: WINDOW });
      // One conversation is one memory thread, named in the request context of every run.
      const requestContext = new RequestContext();
      requestContext.set('MastraMemory', { thread: { id: `bench-${++threads}` }, resourceId: 'bench' });
      return (prompt, state) => viaProcessor(baton, prompt, state, requestContext);
    },
    estimate: async (prompt) => promptToEntries(prompt).reduce((sum, e) => sum + counter.raw(e), 0),
  },
];

function resultsOf(prompt: PromptMessage[]) {
  return promptToEntries(prompt).flatMap((e) => e.parts.filter((p) => p.type === 'tool-result'));
}

const exact = (prompt: PromptMessage[]) =>
  promptToEntries(prompt).reduce((sum, e) => sum + counter.raw(e), 0);

const tiktoken = await tiktokenTokenizer('o200k_base');
const reference = (prompt: PromptMessage[]) => referenceTokens(promptToEntries(prompt), tiktoken);

console.log(
  `# @baton/mastra vs Mastra's context processors (Node ${process.version}, ${new Date().toISOString()})\n`,
);
console.log(
  `Window ${WINDOW.toLocaleString('en-US')} tokens, input budget ${BUDGET.toLocaleString('en-US')}.\n`,
);
console.log('| processor | 1,000 messages: median per call | 5,000 messages: median per call |');
console.log('|---|---:|---:|');
for (const variant of variants) {
  const cells: string[] = [];
  for (const n of [1_000, 5_000]) {
    const base = history(n);
    const step = variant.create();
    const samples: number[] = [];
    const runs = n >= 5_000 ? 8 : 20;
    for (let i = 0; i < runs + 1; i++) {
      // Mastra builds a new prompt every step: a fresh copy each call, with a new question.
      const prompt = structuredClone([
        ...base.slice(0, -1),
        { role: 'user' as const, content: `question ${i}` },
      ]);
      const start = performance.now();
      await step(prompt, {});
      if (i > 0) samples.push(performance.now() - start); // the first call is the cold count
    }
    samples.sort((a, b) => a - b);
    cells.push(`${samples[Math.floor(samples.length / 2)]!.toFixed(2)} ms`);
  }
  console.log(`| ${variant.name} | ${cells.join(' | ')} |`);
}

console.log(
  '\nReplaying the five real transcripts as agent loops (one model call before every assistant message):\n',
);
console.log(
  '| processor | model calls | token-count error vs exact BPE (mean; range) | over the budget | largest prompt (tokens) | prompts with an orphaned tool result | tool results sent verbatim |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const variant of variants) {
  let calls = 0;
  let over = 0;
  let largest = 0;
  let orphaned = 0;
  let results = 0;
  let verbatim = 0;
  const errors: number[] = [];
  for (const transcript of transcripts) {
    const full = promptOf(transcript.messages);
    const step = variant.create();
    for (let i = 1; i < full.length; i++) {
      if (full[i]!.role !== 'assistant') continue;
      const history = full.slice(0, i);
      if (variant.estimate) {
        const truth = reference(history);
        errors.push(((await variant.estimate(history)) - truth) / truth);
      }
      // One state per run, as Mastra passes it; each replayed step is the first of its run.
      const sent = await step(structuredClone(history), {});
      calls++;
      const tokens = exact(sent);
      largest = Math.max(largest, tokens);
      if (tokens > BUDGET) over++;
      if (pairingViolation(promptToEntries(sent).filter((e) => e.role !== 'system'))) orphaned++;
      const outputs = new Map(resultsOf(history).map((r) => [r.callId, JSON.stringify(r.output)]));
      results += outputs.size;
      verbatim += resultsOf(sent).filter((r) => outputs.get(r.callId) === JSON.stringify(r.output)).length;
    }
  }
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
  const error =
    errors.length === 0
      ? 'n/a (no estimate)'
      : `${pct(errors.reduce((a, b) => a + b, 0) / errors.length)}; ${pct(Math.min(...errors))} to ${pct(Math.max(...errors))}`;
  console.log(
    `| ${variant.name} | ${calls} | ${error} | ${over} | ${largest.toLocaleString('en-US')} | ${orphaned} | ${((100 * verbatim) / results).toFixed(0)}% |`,
  );
}

/**
 * Mastra's context processors side by side, on the same histories, in one run. Each runs at
 * the stage Mastra runs it inside an agent (`processLLMRequest` on the provider-shaped prompt):
 * per-call overhead at 1,000 and 5,000 messages; and on the real transcripts in
 * ../shared/corpus replayed as agent loops (one model call before every assistant message):
 * the token-count error of each processor's estimate against exact BPE counts, how often the
 * model would have been sent more than the budget, and how many prompts carried an orphaned
 * tool result. Run: `pnpm bench`.
 */
import {
  entriesToPrompt,
  fromOpenAIChat,
  gptTokenizer,
  type PromptMessage,
  pairingViolation,
  promptToEntries,
  TokenCounter,
  tiktokenTokenizer,
  toOpenAIChat,
} from '@baton/core';
import { CORPUS_MISSING, corpusAvailable, loadCorpus } from '@baton/scenarios/support/transcripts.ts';
import { TokenLimiterProcessor, ToolCallFilter } from '@mastra/core/processors';
import { batonProcessor } from '../src/index.ts';

const WINDOW = 32_000;
const BUDGET = WINDOW - 6_400; // Baton's default output reserve at this window
const counter = new TokenCounter(gptTokenizer(), 512);

if (!corpusAvailable) {
  console.error(CORPUS_MISSING);
  process.exit(1);
}
const transcripts = loadCorpus();

/** A transcript's messages as the provider-shaped prompt `processLLMRequest` receives. */
function promptOf(messages: Parameters<typeof fromOpenAIChat>[0]): PromptMessage[] {
  return structuredClone(entriesToPrompt(fromOpenAIChat(messages)));
}

/** A history of n messages from the transcripts, copies with unique tool-call ids, ending on a user message. */
function history(n: number): PromptMessage[] {
  const out: PromptMessage[] = [];
  for (let copy = 0; out.length < n; copy++) {
    for (const t of transcripts) {
      const messages = t.messages
        .filter((m) => m.role !== 'system')
        .map((m) => ({
          ...m,
          ...(m.tool_call_id ? { tool_call_id: `${m.tool_call_id}_${copy}` } : {}),
          ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: `${c.id}_${copy}` })) } : {}),
        }));
      out.push(...promptOf(messages));
    }
  }
  const cut = out.slice(0, n - 1);
  while (cut.length > 0 && cut.at(-1)!.role === 'assistant') cut.pop();
  return [
    { role: 'system', content: 'You are a coding agent.' },
    ...cut,
    { role: 'user', content: 'and now?' },
  ];
}

interface Variant {
  name: string;
  /** A fresh processor chain for one conversation; returns the prompt the model would get. */
  create(): (prompt: PromptMessage[], state: Record<string, unknown>) => Promise<PromptMessage[]>;
  /** The variant's own token estimate for a prompt, when it has one. */
  estimate?: (prompt: PromptMessage[]) => Promise<number>;
}

type LLMRequest = { processLLMRequest(args: never): unknown };
async function viaProcessor(processor: LLMRequest, prompt: PromptMessage[], state: Record<string, unknown>) {
  const abort = (reason?: string): never => {
    throw new Error(reason ?? 'aborted');
  };
  const result = (await processor.processLLMRequest({
    prompt,
    state,
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
      return (prompt, state) => viaProcessor(baton, prompt, state);
    },
    estimate: async (prompt) => promptToEntries(prompt).reduce((sum, e) => sum + counter.raw(e), 0),
  },
];

function resultsOf(prompt: PromptMessage[]) {
  return promptToEntries(prompt).flatMap((e) => e.parts.filter((p) => p.type === 'tool-result'));
}

const exact = (prompt: PromptMessage[]) =>
  promptToEntries(prompt).reduce((sum, e) => sum + counter.raw(e), 0);

/**
 * The reference count, independent of Baton's counter: tiktoken's o200k BPE over what an
 * OpenAI-style provider tokenizes (content, tool names and arguments), plus its documented
 * framing of 3 tokens per message and 3 for the reply.
 */
const tiktoken = await tiktokenTokenizer('o200k_base');
function reference(prompt: PromptMessage[]): number {
  let total = 3;
  for (const m of toOpenAIChat(promptToEntries(prompt))) {
    total += 3 + tiktoken.count(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));
    for (const call of m.tool_calls ?? [])
      total += tiktoken.count(call.function.name + call.function.arguments);
  }
  return total;
}

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

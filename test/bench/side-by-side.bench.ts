/**
 * Baton (each adapter) against the frameworks' own context tools, side by side, in one run,
 * on the same histories: the five real transcripts in ../shared/corpus replayed as agent
 * loops (a model call before every assistant message), and generated histories of 1,000 and
 * 5,000 messages for the per-call overhead. Every variant runs through its framework's real
 * call path with that framework's mock model:
 * - AI SDK: `generateText` with `MockLanguageModelV4`.
 * - LangChain: `createAgent` with `fakeModel()`.
 * - Mastra: `processLLMRequest`, the stage where Mastra runs these processors.
 * Writes bench/results.md and bench/results.svg at the repository root. Run: `pnpm bench`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { createBaton as createAiSdkBaton } from '@baton/ai-sdk';
import {
  createEntry,
  type Entry,
  extractiveSummarizer,
  fromOpenAIChat,
  gptTokenizer,
  type OpenAIMessage,
  type Summarizer,
  TokenCounter,
  tiktokenTokenizer,
} from '@baton/core';
import { type PromptMessage, pairingViolation, promptToEntries } from '@baton/core/internals';
import { batonMiddleware, toEntries as fromLangChain } from '@baton/langgraph';
import { batonProcessor } from '@baton/mastra';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { TokenLimiterProcessor, ToolCallFilter } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { generateText, type ModelMessage, pruneMessages, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  ClearToolUsesEdit,
  contextEditingMiddleware,
  countTokensApproximately,
  createAgent,
  fakeModel,
  summarizationMiddleware,
} from 'langchain';
import {
  BENCH_BUDGET,
  BENCH_WINDOW,
  benchCorpus,
  generatedHistory,
  referenceTokens,
  toLangChainMessages,
  toModelPrompt,
} from '../support/bench-histories.ts';

const WINDOW = BENCH_WINDOW;
const BUDGET = BENCH_BUDGET;
const counter = new TokenCounter(gptTokenizer(), 512);
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const transcripts = benchCorpus();

// ---------------------------------------------------------------------------------------------
// Histories

const generated = (n: number, question: string) => generatedHistory(transcripts, n, question);
const toLangChain = toLangChainMessages;
const toPrompt = toModelPrompt;

// ---------------------------------------------------------------------------------------------
// Variants: one conversation each; `send` makes one model call and returns what the model received.

interface Conversation {
  send(history: readonly OpenAIMessage[]): Promise<Entry[]>;
}
interface Variant {
  framework: 'AI SDK' | 'LangChain' | 'Mastra';
  name: string;
  baton: boolean;
  conversation(meter: SummaryMeter): Conversation;
  /** The variant's own token estimate of a history, when it has one. */
  estimate?(history: readonly OpenAIMessage[]): number;
}

/** Summarizer calls and the tokens they were given. */
interface SummaryMeter {
  calls: number;
  inputTokens: number;
}

const generateResult: LanguageModelV4GenerateResult = {
  content: [{ type: 'text', text: 'ok' }],
  finishReason: { unified: 'stop', raw: undefined },
  usage: {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  },
  warnings: [],
};
function aiSdkMock(seen: PromptMessage[][]) {
  return new MockLanguageModelV4({
    doGenerate: async (options: LanguageModelV4CallOptions) => {
      seen.push(options.prompt as unknown as PromptMessage[]);
      return generateResult;
    },
  });
}
/**
 * Every message the model received, in order, Baton's own notes/notices message included:
 * `promptToEntries` drops that message (hosts must not store it), so system messages are
 * taken as they are here, or the bench would not bill them.
 */
const entriesOfPrompt = (prompt: PromptMessage[]): Entry[] =>
  prompt.flatMap((message, seq) =>
    message.role === 'system'
      ? [
          createEntry(
            seq,
            'system',
            typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
          ),
        ]
      : promptToEntries([message]),
  );

/** One AI SDK conversation: `generateText` on the mock (wrapped by `wrap` when given), one step per send. */
function aiSdkConversation(
  wrap?: (model: MockLanguageModelV4) => Parameters<typeof generateText>[0]['model'],
  prepareStep?: Parameters<typeof generateText>[0]['prepareStep'],
): Conversation {
  const seen: PromptMessage[][] = [];
  const mock = aiSdkMock(seen);
  const model = wrap ? wrap(mock) : mock;
  return {
    async send(history) {
      await generateText({
        model,
        messages: toPrompt(history) as ModelMessage[],
        allowSystemInMessages: true,
        ...(prepareStep ? { prepareStep } : {}),
      });
      return entriesOfPrompt(seen.at(-1) as PromptMessage[]);
    },
  };
}

function meteredExtractive(meter: SummaryMeter): Summarizer {
  const inner = extractiveSummarizer();
  return async (input) => {
    meter.calls++;
    meter.inputTokens += input.entries.reduce((sum, e) => sum + counter.raw(e), 0);
    return inner(input);
  };
}

function langChainAgent(middleware: unknown[], thread: string): Conversation {
  let sent: BaseMessage[] = [];
  const model = fakeModel();
  for (let i = 0; i < 100_000; i++)
    model.respond((messages: BaseMessage[]) => {
      sent = messages;
      return new AIMessage('ok');
    });
  const agent = createAgent({ model, tools: [], middleware: middleware as never[] });
  // A thread keeps its message objects (and the ids LangGraph gives them) from step to step.
  const converted = new WeakMap<OpenAIMessage, BaseMessage>();
  const asLangChain = (m: OpenAIMessage) => {
    let message = converted.get(m);
    if (!message) {
      message = toLangChain([m])[0] as BaseMessage;
      converted.set(m, message);
    }
    return message;
  };
  return {
    async send(history) {
      await agent.invoke({ messages: history.map(asLangChain) }, { configurable: { thread_id: thread } });
      return fromLangChain(sent);
    },
  };
}

let mastraThreads = 0;
function mastraProcessor(processor: { processLLMRequest(args: never): unknown }): Conversation {
  // One conversation is one memory thread: Mastra names it in the request context of every run.
  const requestContext = new RequestContext();
  requestContext.set('MastraMemory', { thread: { id: `bench-${++mastraThreads}` }, resourceId: 'bench' });
  return {
    async send(history) {
      const prompt = toPrompt(history);
      const result = (await processor.processLLMRequest({
        prompt,
        requestContext,
        state: {},
        stepNumber: 0,
        steps: [],
        retryCount: 0,
        abort: (reason?: string) => {
          throw new Error(reason);
        },
      } as never)) as { prompt?: PromptMessage[] } | undefined;
      return entriesOfPrompt(result?.prompt ?? prompt);
    },
  };
}

const limiterCount = new TokenLimiterProcessor({ limit: BUDGET }) as unknown as {
  countPromptMessageTokens(message: PromptMessage): number;
};
let threads = 0;
const variants: Variant[] = [
  {
    framework: 'AI SDK',
    name: 'no context tool',
    baton: false,
    conversation: () => aiSdkConversation(),
  },
  {
    framework: 'AI SDK',
    name: 'Baton `middleware`',
    baton: true,
    conversation: (meter) => {
      const session = createAiSdkBaton({
        contextWindow: WINDOW,
        summarizer: meteredExtractive(meter),
      }).session(`t${threads++}`);
      return aiSdkConversation((model) => wrapLanguageModel({ model, middleware: session.middleware }));
    },
    estimate: (history) => fromOpenAIChat(history).reduce((sum, e) => sum + counter.raw(e), 0),
  },
  {
    framework: 'AI SDK',
    name: '`prepareStep` + `pruneMessages` (cookbook, chars/4)',
    baton: false,
    conversation: () =>
      aiSdkConversation(undefined, ({ messages }) =>
        JSON.stringify(messages).length / 4 > BUDGET * 0.8
          ? { messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages' }) }
          : {},
      ),
    estimate: (history) => JSON.stringify(toPrompt(history)).length / 4,
  },
  {
    framework: 'LangChain',
    name: 'no context tool',
    baton: false,
    conversation: () => langChainAgent([], `t${threads++}`),
  },
  {
    framework: 'LangChain',
    name: 'Baton `batonMiddleware`',
    baton: true,
    conversation: (meter) =>
      langChainAgent(
        [batonMiddleware({ contextWindow: WINDOW, summarizer: meteredExtractive(meter) })],
        `t${threads++}`,
      ),
    estimate: (history) => fromOpenAIChat(history).reduce((sum, e) => sum + counter.raw(e), 0),
  },
  {
    framework: 'LangChain',
    name: '`summarizationMiddleware` (trigger 80% of budget, keep 20)',
    baton: false,
    conversation: (meter) => {
      const summarizer = fakeModel();
      for (let i = 0; i < 100_000; i++)
        summarizer.respond((messages: BaseMessage[]) => {
          meter.calls++;
          meter.inputTokens += fromLangChain(messages).reduce((sum, e) => sum + counter.raw(e), 0);
          return new AIMessage('Summary of the conversation so far.');
        });
      return langChainAgent(
        [
          summarizationMiddleware({
            model: summarizer,
            trigger: { tokens: BUDGET * 0.8 },
            keep: { messages: 20 },
          }),
        ],
        `t${threads++}`,
      );
    },
    estimate: (history) => countTokensApproximately(toLangChain(history)),
  },
  {
    framework: 'LangChain',
    name: '`contextEditingMiddleware` (default `ClearToolUsesEdit`)',
    baton: false,
    conversation: () =>
      langChainAgent([contextEditingMiddleware({ edits: [new ClearToolUsesEdit()] })], `t${threads++}`),
    estimate: (history) => countTokensApproximately(toLangChain(history)),
  },
  {
    framework: 'Mastra',
    name: 'no context tool',
    baton: false,
    conversation: () => mastraProcessor({ processLLMRequest: () => undefined }),
  },
  {
    framework: 'Mastra',
    name: 'Baton `BatonProcessor`',
    baton: true,
    conversation: (meter) =>
      mastraProcessor(batonProcessor({ contextWindow: WINDOW, summarizer: meteredExtractive(meter) })),
    estimate: (history) => fromOpenAIChat(history).reduce((sum, e) => sum + counter.raw(e), 0),
  },
  {
    framework: 'Mastra',
    name: '`TokenLimiterProcessor` (limit = budget)',
    baton: false,
    conversation: () => mastraProcessor(new TokenLimiterProcessor({ limit: BUDGET })),
    estimate: (history) =>
      24 + toPrompt(history).reduce((sum, m) => sum + limiterCount.countPromptMessageTokens(m), 0),
  },
  {
    framework: 'Mastra',
    name: '`ToolCallFilter` (default)',
    baton: false,
    conversation: () => mastraProcessor(new ToolCallFilter()),
  },
];

// ---------------------------------------------------------------------------------------------
// Measurements

const tiktoken = await tiktokenTokenizer('o200k_base');
const reference = (history: readonly OpenAIMessage[]) => referenceTokens(fromOpenAIChat(history), tiktoken);
const exact = (entries: readonly Entry[]) => entries.reduce((sum, e) => sum + counter.raw(e), 0);
/** Cached input is billed at a tenth of the price (OpenAI's cached input, Anthropic's cache read). */
const CACHED_PRICE = 0.1;
const sameEntry = (a: Entry, b: Entry) =>
  a.role === b.role && JSON.stringify(a.parts) === JSON.stringify(b.parts);
/**
 * Tokens of `sent` a provider cache would serve from the previous call of the conversation:
 * the leading messages both prompts share byte for byte (caches match whole prefixes).
 */
function cachedPrefix(sent: readonly Entry[], previous: readonly Entry[] | undefined): number {
  let tokens = 0;
  for (
    let i = 0;
    previous && i < sent.length && i < previous.length && sameEntry(sent[i]!, previous[i]!);
    i++
  )
    tokens += counter.raw(sent[i]!);
  return tokens;
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;

interface Result {
  variant: Variant;
  overhead: Record<number, { median: number; p99: number }>;
  error?: { mean: number; min: number; max: number };
  calls: number;
  over: number;
  orphaned: number;
  openingKept: boolean;
  billed: number;
  /** `billed` with each call's prefix shared with the previous call at CACHED_PRICE. */
  cacheAdjusted: number;
  summarizer: SummaryMeter;
}

const results: Result[] = [];
for (const variant of variants) {
  progress(`${variant.framework}: ${variant.name}`);
  const overhead: Result['overhead'] = {};
  for (const size of [1_000, 5_000]) {
    const runs = size >= 5_000 ? 5 : 15;
    const conversation = variant.conversation({ calls: 0, inputTokens: 0 });
    const base = generated(size, 'warm-up');
    await conversation.send(base); // the cold first call is not overhead
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const history = [...base.slice(0, -1), { role: 'user' as const, content: `question ${i}` }];
      const start = performance.now();
      await conversation.send(history);
      samples.push(performance.now() - start);
    }
    samples.sort((a, b) => a - b);
    overhead[size] = { median: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
  }
  const meter: SummaryMeter = { calls: 0, inputTokens: 0 };
  const errors: number[] = [];
  let calls = 0;
  let over = 0;
  let orphaned = 0;
  let openingKept = true;
  let billed = 0;
  let cacheAdjusted = 0;
  for (const transcript of transcripts) {
    const conversation = variant.conversation(meter);
    let previous: Entry[] | undefined;
    const opening = transcript.messages.find((m) => m.role === 'user')?.content;
    for (let i = 1; i < transcript.messages.length; i++) {
      if (transcript.messages[i]!.role !== 'assistant') continue;
      const history = transcript.messages.slice(0, i);
      if (variant.estimate) {
        const truth = reference(history);
        errors.push((variant.estimate(history) - truth) / truth);
      }
      const sent = await conversation.send(history);
      calls++;
      const tokens = exact(sent);
      billed += tokens;
      const cached = cachedPrefix(sent, previous);
      cacheAdjusted += tokens - cached + CACHED_PRICE * cached;
      previous = sent;
      if (tokens > BUDGET) over++;
      if (pairingViolation(sent.filter((e) => e.role !== 'system'))) orphaned++;
      if (
        typeof opening === 'string' &&
        !sent.some((e) => e.parts.some((p) => p.type === 'text' && p.text === opening))
      )
        openingKept = false;
    }
  }
  results.push({
    variant,
    overhead,
    ...(errors.length > 0
      ? {
          error: {
            mean: errors.reduce((a, b) => a + b, 0) / errors.length,
            min: Math.min(...errors),
            max: Math.max(...errors),
          },
        }
      : {}),
    calls,
    over,
    orphaned,
    openingKept,
    billed,
    cacheAdjusted,
    summarizer: meter,
  });
}

// ---------------------------------------------------------------------------------------------
// Output

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? `${fmt(n)} ms` : `${n.toFixed(n >= 10 ? 1 : 2)} ms`);
const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
const date = new Date().toISOString().slice(0, 10);
const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}`;
const header =
  '| framework | variant | per call, 1,000 msgs (median / p99) | per call, 5,000 msgs (median / p99) | token-count error vs exact BPE (mean; range) | calls over budget | calls with orphaned tool results | opening request kept | input tokens billed | cache-adjusted (cached prefix at 0.1x) | summarizer calls (input tokens) |';
const rows = results.map((r) => {
  const cell = (size: number) => `${ms(r.overhead[size]!.median)} / ${ms(r.overhead[size]!.p99)}`;
  const name = r.variant.baton ? `**${r.variant.name}**` : r.variant.name;
  return `| ${r.variant.framework} | ${name} | ${cell(1_000)} | ${cell(5_000)} | ${r.error ? `${pct(r.error.mean)}; ${pct(r.error.min)} to ${pct(r.error.max)}` : 'n/a'} | ${r.over} of ${r.calls} | ${r.orphaned} | ${r.openingKept ? 'yes' : 'no'} | ${fmt(r.billed)} | ${fmt(r.cacheAdjusted)} | ${r.summarizer.calls} (${fmt(r.summarizer.inputTokens)}) |`;
});
const markdown = `# Baton vs the frameworks' own context tools

Measured ${date} on ${machine}, one run of \`pnpm bench\` (\`test/bench/side-by-side.bench.ts\`). Window ${fmt(WINDOW)} tokens, input budget ${fmt(BUDGET)}.
Per-call overhead: one model call through the framework's real path with its mock model, on generated histories of 1,000 and 5,000 messages (warm, a new question each call).
Everything else: the five transcripts in \`../shared/corpus\` replayed as agent loops (${results[0]?.calls} model calls each).
Token-count error: the variant's own estimate against tiktoken o200k over what the provider tokenizes, plus 3 tokens of framing per message.
Input tokens billed: exact BPE of every prompt sent, summed. Cache-adjusted: the same with the leading messages each prompt shares byte for byte with the conversation's previous prompt at 0.1x (cached input, cache reads); cache writes not charged extra. Summarizer calls: the summaries each variant asked for, and the tokens it gave them.

${header}
|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|
${rows.join('\n')}
`;

function chart(): string {
  const W = 900;
  const rowH = 26;
  const left = 300;
  const H = 60 + results.length * rowH;
  const maxOver = Math.max(1, ...results.map((r) => r.over));
  const logMax = Math.log10(Math.max(...results.map((r) => r.overhead[1_000]!.median)) * 2);
  const logMin = Math.log10(Math.min(...results.map((r) => r.overhead[1_000]!.median)) / 2);
  const barW = (W - left - 40) / 2 - 20;
  const bars = results.map((r, i) => {
    const y = 40 + i * rowH;
    const color = r.variant.baton ? '#1a73e8' : '#9aa0a6';
    const overW = (r.over / maxOver) * barW;
    const msW = ((Math.log10(r.overhead[1_000]!.median) - logMin) / (logMax - logMin)) * barW;
    // The short name: the options in parentheses are in the table.
    const label = `${r.variant.framework}: ${r.variant.name.replace(/\s*\(.*\)$/, '').replace(/[`*]/g, '')}`;
    return `<text x="${left - 8}" y="${y + 14}" text-anchor="end" font-size="12">${label.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>
<rect x="${left}" y="${y + 3}" width="${Math.max(1, overW).toFixed(1)}" height="16" fill="${color}"/><text x="${left + Math.max(1, overW) + 4}" y="${y + 15}" font-size="11">${r.over}</text>
<rect x="${left + barW + 40}" y="${y + 3}" width="${Math.max(1, msW).toFixed(1)}" height="16" fill="${color}"/><text x="${left + barW + 44 + Math.max(1, msW)}" y="${y + 15}" font-size="11">${ms(r.overhead[1_000]!.median)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui,sans-serif">
<title>Calls over the budget and per-call cost, Baton vs each framework's own context tools</title>
<rect width="${W}" height="${H}" fill="#fff"/>
<text x="${left}" y="24" font-size="13" font-weight="bold">calls over the budget (of ${results[0]?.calls})</text>
<text x="${left + barW + 40}" y="24" font-size="13" font-weight="bold">per call at 1,000 messages (log scale)</text>
${bars.join('\n')}
</svg>
`;
}

const outDir = fileURLToPath(new URL('../../bench/', import.meta.url));
mkdirSync(outDir, { recursive: true });
writeFileSync(`${outDir}results.md`, markdown);
writeFileSync(`${outDir}results.svg`, chart());
console.log(markdown);
progress('wrote bench/results.md and bench/results.svg');

/**
 * Baton (each adapter) against the frameworks' own context tools, side by side, in one run,
 * on the same histories: the twelve real conversations in ../shared/corpus (five transcripts,
 * seven sessions) replayed as agent loops (a model call before every assistant message), and
 * histories of 1,000 and 5,000 messages generated from the transcripts for the per-call
 * overhead. Every prompt is billed by core's cost meter, as providers bill it. Every variant runs through its framework's real
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
import { batonBreakpointPositions, promptText, referenceRetention, withoutBreakpoints } from '@baton/cli';
import {
  type CostMeter,
  cacheRulesFor,
  costMeter,
  createBaton as createCoreBaton,
  createEntry,
  type Entry,
  extractiveSummarizer,
  fromOpenAIChat,
  gptTokenizer,
  lookupModel,
  memoryStore,
  type OpenAIMessage,
  promptBlocks,
  type Store,
  type Summarizer,
  TokenCounter,
  type ToolSchema,
  tiktokenTokenizer,
  tokenPricing,
  withBreakpoints,
} from '@baton/core';
import {
  entryText,
  NOTICES_HEADING,
  type PromptMessage,
  pairingViolation,
  promptToEntries,
} from '@baton/core/internals';
import { batonMiddleware, toEntries as fromLangChain } from '@baton/langgraph';
import { batonProcessor } from '@baton/mastra';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { TokenLimiterProcessor, ToolCallFilter } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { generateText, type ModelMessage, pruneMessages, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  ClearToolUsesEdit,
  contextEditingMiddleware,
  countTokensApproximately,
  createAgent,
  createMiddleware,
  fakeModel,
  summarizationMiddleware,
} from 'langchain';
import {
  BENCH_BUDGET,
  BENCH_WINDOW,
  backToBackRun,
  benchCorpus,
  benchReplays,
  generatedHistory,
  referenceTokens,
  revisitingRun,
  toLangChainMessages,
  toModelPrompt,
} from '../support/bench-histories.ts';
import type { Transcript } from '../support/transcripts.ts';

/** The replays run at both windows; overhead and token-count error at BENCH_WINDOW. */
const REPLAY_WINDOWS = [BENCH_WINDOW, 16_000];
/** The input budget Baton derives from a window (the default output reserve: a fifth, at most 16,384). */
const budgetOf = (window: number) => window - Math.min(16_384, Math.floor(window * 0.2));
// The window of the pass running now: every variant reads these when it builds a conversation.
let WINDOW = BENCH_WINDOW;
let BUDGET = BENCH_BUDGET;
const counter = new TokenCounter(gptTokenizer(), 512);
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const transcripts = benchCorpus();
const replays = benchReplays();

// ---------------------------------------------------------------------------------------------
// Histories

const generated = (n: number, question: string) => generatedHistory(transcripts, n, question);
const toLangChain = toLangChainMessages;
const toPrompt = toModelPrompt;

// ---------------------------------------------------------------------------------------------
// Variants: one conversation each; `send` makes one model call and returns what the model received.

interface Conversation {
  send(history: readonly OpenAIMessage[]): Promise<Entry[]>;
  /**
   * The tool definitions the last request carried, when the variant adds any: the provider
   * bills them before the system prompt, on every call (a middleware's own tools included).
   */
  tools?(): readonly ToolSchema[];
  /** Calls so far that compacted (Baton's engine: a call where a stage ran), when the policy compacts. */
  compactions?(): number;
}
interface Variant {
  framework: 'AI SDK' | 'LangChain' | 'Mastra' | 'baseline';
  name: string;
  baton: boolean;
  /** A new conversation; Baton variants keep their archive in `archive.store`. */
  conversation(meter: SummaryMeter, archive: RecordingStore): Conversation;
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
      // Only the newest prompt is read: keeping every one grows without bound on a long run.
      seen.length = 0;
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

/** Baton's AI SDK middleware on the mock, at the current WINDOW, archiving into `archive`. */
function aiSdkBaton(
  meter: SummaryMeter,
  archive: RecordingStore,
  thresholds: { compactAt?: number; targetAt?: number } = {},
): Conversation {
  let stages = 0;
  let skipped = 0;
  let compactions = 0;
  const session = createAiSdkBaton({
    contextWindow: WINDOW,
    store: archive.store,
    summarizer: meteredExtractive(meter),
    onEvent: (event) => {
      if (event.type === 'stage-completed') stages++;
      // Stages ran but the compaction did not repay its cache write: the prompt stayed as it was.
      if (event.type === 'compaction-skipped') skipped++;
    },
    ...thresholds,
  }).session(`t${threads++}`);
  const conversation = aiSdkConversation((model) =>
    wrapLanguageModel({ model, middleware: session.middleware }),
  );
  return {
    async send(history) {
      const before = stages;
      const skippedBefore = skipped;
      const sent = await conversation.send(history);
      if (stages > before && skipped === skippedBefore) compactions++;
      return sent;
    },
    compactions: () => compactions,
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
  let tools: ToolSchema[] = [];
  const model = fakeModel();
  for (let i = 0; i < 100_000; i++)
    model.respond((messages: BaseMessage[]) => {
      sent = messages;
      return new AIMessage('ok');
    });
  // Innermost: the tools of the request the model is called with (`batonMiddleware` adds
  // notes, compact and recall to every request), as the provider receives their schemas.
  const requestTools = createMiddleware({
    name: 'BenchRequestTools',
    wrapModelCall: (request, handler) => {
      tools = request.tools.map((tool) => {
        const { name, description, schema } = tool as {
          name: string;
          description?: string;
          schema?: unknown;
        };
        return {
          name,
          ...(description ? { description } : {}),
          ...(schema ? { inputSchema: toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]) } : {}),
        };
      });
      return handler(request);
    },
  });
  const agent = createAgent({ model, tools: [], middleware: [...middleware, requestTools] as never[] });
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
    tools: () => tools,
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

/** A store that keeps the text of every entry archived into it: what a recall can bring back. */
interface RecordingStore {
  store: Store;
  archived: string[];
}
function recordingStore(): RecordingStore {
  const inner = memoryStore();
  const archived: string[] = [];
  const store: Store = {
    getDocument: (namespace, key) => inner.getDocument(namespace, key),
    putDocument: (namespace, key, value, expected) => inner.putDocument(namespace, key, value, expected),
    appendArchive: async (sessionId, records) => {
      await inner.appendArchive(sessionId, records);
      for (const record of records) archived.push(entryText(record.entry));
    },
    getArchive: (sessionId, ref) => inner.getArchive(sessionId, ref),
    rangeArchive: (sessionId, from, to) => inner.rangeArchive(sessionId, from, to),
    searchArchive: (sessionId, query, limit) => inner.searchArchive(sessionId, query, limit),
  };
  return { store, archived };
}

/**
 * The sliding window: the system prompt, then the newest messages that fit the budget (exact
 * counts), a tool result whose call fell out dropped with it.
 */
function slidingWindow(): Conversation {
  return {
    async send(history) {
      const entries = fromOpenAIChat(history);
      const system = entries.filter((e) => e.role === 'system');
      let tokens = exact(system);
      let first = entries.length;
      while (
        first > 0 &&
        entries[first - 1]!.role !== 'system' &&
        tokens + counter.raw(entries[first - 1]!) <= BUDGET
      )
        tokens += counter.raw(entries[--first]!);
      while (entries[first]?.role === 'tool') first++;
      return [...system, ...entries.slice(first)];
    },
  };
}

/**
 * The fixed-interval policy: Baton's ladder forced every `interval` calls and never on a
 * threshold (compactAt 1: only a prompt over the whole budget compacts in between), called on
 * core directly; what the model receives is the system prompt, the projection and the notices.
 */
function fixedInterval(interval: number, meter: SummaryMeter, archive: RecordingStore): Conversation {
  const session = createCoreBaton({
    contextWindow: WINDOW,
    store: archive.store,
    compactAt: 1,
    truncateAt: 1,
    warnAt: 1,
    targetAt: 0.99,
    summarizer: meteredExtractive(meter),
  }).session(`interval-${threads++}`);
  let calls = 0;
  let compactions = 0;
  return {
    compactions: () => compactions,
    async send(history) {
      if (++calls % interval === 0) session.requestCompaction();
      const prepared = await session.prepare({ entries: fromOpenAIChat(history) });
      if (prepared.outcome === 'compacted') compactions++;
      return [
        ...(prepared.system ? [createEntry(-1, 'system', prepared.system)] : []),
        ...prepared.entries,
        ...(prepared.trailer ? [createEntry(-2, 'user', prepared.trailer)] : []),
      ];
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
    conversation: (meter, archive) => aiSdkBaton(meter, archive),
    estimate: (history) => fromOpenAIChat(history).reduce((sum, e) => sum + counter.raw(e), 0),
  },
  {
    framework: 'AI SDK',
    name: 'Baton `middleware`, cost-tuned (`targetAt: 0.3`)',
    baton: true,
    conversation: (meter, archive) => aiSdkBaton(meter, archive, { targetAt: 0.3 }),
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
    conversation: (meter, archive) =>
      langChainAgent(
        [
          batonMiddleware({
            contextWindow: WINDOW,
            store: archive.store,
            summarizer: meteredExtractive(meter),
          }),
        ],
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
    conversation: (meter, archive) =>
      mastraProcessor(
        batonProcessor({ contextWindow: WINDOW, store: archive.store, summarizer: meteredExtractive(meter) }),
      ),
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
  {
    framework: 'baseline',
    name: 'delete oldest (sliding window to the budget)',
    baton: false,
    conversation: () => slidingWindow(),
  },
  {
    framework: 'baseline',
    name: 'compaction every 10 calls (Baton ladder, no threshold)',
    baton: false,
    conversation: (meter, archive) => fixedInterval(10, meter, archive),
  },
];

// ---------------------------------------------------------------------------------------------
// Measurements

const tiktoken = await tiktokenTokenizer('o200k_base');
const reference = (history: readonly OpenAIMessage[]) => referenceTokens(fromOpenAIChat(history), tiktoken);
const exact = (entries: readonly Entry[]) => entries.reduce((sum, e) => sum + counter.raw(e), 0);
/**
 * How each variant's calls are billed, by core's cost meter: provider-neutral input-token
 * equivalents (any shared prefix read at 0.1x, the same with every new token written at 1.25x), and US dollars at the registry prices of the model the Claude Code sessions
 * ran, under Anthropic's rules (cached only up to `cache_control` breakpoints, 20-block lookback,
 * 1,024-token minimum, 5-minute writes at 1.25x, reads at 0.1x), twice: with breakpoints where
 * Baton places them (end of the stable prefix, newest message before its notices) and with none
 * (a host that sets none caches nothing). Claude Sonnet 4.5 has the same prices and minimum.
 */
const USD_MODEL = 'claude-sonnet-4';
const usdPricing = lookupModel(USD_MODEL)?.pricing;
if (!usdPricing) throw new Error(`[bench] no registry prices for ${USD_MODEL}`);
const usdRules = cacheRulesFor(USD_MODEL);
if (usdRules?.kind !== 'breakpoints')
  throw new Error(`[bench] ${USD_MODEL} is not billed by breakpoint rules`);
/** A replay has no clock: calls are taken 5 seconds apart, well inside the 5-minute lifetime. */
const CALL_INTERVAL_MS = 5_000;
interface Meters {
  read: CostMeter;
  write: CostMeter;
  usd: CostMeter;
  usdBare: CostMeter;
}
const newMeters = (): Meters => ({
  read: costMeter({ pricing: tokenPricing() }),
  write: costMeter({ pricing: tokenPricing({ cacheWrite: 1.25 }) }),
  usd: costMeter({ pricing: usdPricing, rules: usdRules }),
  usdBare: costMeter({ pricing: usdPricing, rules: usdRules }),
});
const billAll = (meters: Meters, call: Parameters<CostMeter['bill']>[0]) => {
  meters.read.bill(call);
  meters.write.bill(call);
  meters.usd.bill(call);
  meters.usdBare.bill({ ...call, prompt: withoutBreakpoints(call.prompt) });
};
/**
 * What the model received, as billed blocks with Baton's breakpoints: the stable prefix's end and
 * the newest message before Baton's notices (the last message when it is them). Tool definitions
 * come first, as providers bill them: a breakpoint after them caches them too.
 */
function sentBlocks(sent: readonly Entry[], tools: readonly ToolSchema[] = []) {
  const last = sent.at(-1)?.parts[0];
  const notices =
    sent.at(-1)?.role === 'user' && last?.type === 'text' && last.text.startsWith(NOTICES_HEADING);
  const definitions = JSON.stringify(tools);
  const head = tools.length > 0 ? [{ id: `tools:${definitions}`, tokens: counter.rawTools(tools) }] : [];
  return withBreakpoints(
    [...head, ...promptBlocks({ entries: sent }, counter)],
    batonBreakpointPositions({ entries: notices ? sent.slice(0, -1) : sent }).map((at) => at + head.length),
  );
}
let summaryPrompts = 0;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;

/** What one variant did on the twelve replays at one window. */
interface Replayed {
  window: number;
  calls: number;
  over: number;
  orphaned: number;
  openingKept: boolean;
  billed: number;
  /** Input-token equivalents, cached reads at 0.1x. */
  cacheAdjusted: number;
  /** The same with uncached input written at 1.25x. */
  cacheAdjustedWrite: number;
  /** Cached input tokens / input tokens, model calls and summaries together. */
  cachedShare: number;
  /** USD under Anthropic's rules, with Baton's breakpoints and with none. */
  usd: number;
  usdNoBreakpoints: number;
  /** Input read from the cache / input, under Anthropic's rules, with Baton's breakpoints and with none. */
  billedShare: number;
  billedShareNoBreakpoints: number;
  /** Calls right after a tool result whose prompt does not carry that result. */
  withoutNewestResult: number;
  /** Calls the variant ended with an error instead of a prompt. */
  failed: number;
  /**
   * Identifiers the agent went on to use: how many, in the prompt, in the prompt or archived;
   * first seen over 50 messages back (`far`) and over 10 (`beyond10`), and how many of those were in the prompt.
   */
  retention: {
    needed: number;
    inPrompt: number;
    recallable: number;
    farInPrompt: number;
    far: number;
    beyond10: number;
    beyond10InPrompt: number;
  };
  /** Calls that compacted, for policies that compact (Baton's engine, or a summarizer call), else undefined. */
  compactions?: number;
  summarizer: SummaryMeter;
  errors: number[];
}

interface Result {
  variant: Variant;
  overhead: Record<number, { median: number; p99: number }>;
  error?: { mean: number; min: number; max: number };
  byWindow: Replayed[];
}

async function measureOverhead(variant: Variant): Promise<Result['overhead']> {
  const overhead: Result['overhead'] = {};
  for (const size of [1_000, 5_000]) {
    // BENCH_QUICK=1 skips the overhead runs (the replays alone, while tuning a policy).
    const runs = process.env.BENCH_QUICK ? 0 : size >= 5_000 ? 5 : 15;
    const conversation = variant.conversation({ calls: 0, inputTokens: 0 }, recordingStore());
    const base = generated(size, 'warm-up');
    if (runs > 0) await conversation.send(base); // the cold first call is not overhead
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
  return overhead;
}

/** Replays conversations (the twelve real ones unless given) through one variant at the current WINDOW. */
async function replayAll(
  variant: Variant,
  conversations: readonly Transcript[] = replays,
): Promise<Replayed> {
  const meter: SummaryMeter = { calls: 0, inputTokens: 0 };
  const r: Replayed = {
    window: WINDOW,
    calls: 0,
    over: 0,
    orphaned: 0,
    openingKept: true,
    billed: 0,
    cacheAdjusted: 0,
    cacheAdjustedWrite: 0,
    cachedShare: 0,
    usd: 0,
    usdNoBreakpoints: 0,
    billedShare: 0,
    billedShareNoBreakpoints: 0,
    withoutNewestResult: 0,
    failed: 0,
    retention: {
      needed: 0,
      inPrompt: 0,
      recallable: 0,
      farInPrompt: 0,
      far: 0,
      beyond10: 0,
      beyond10InPrompt: 0,
    },
    summarizer: meter,
    errors: [],
  };
  let input = 0;
  let cached = 0;
  const billedInput = { input: 0, cached: 0, cachedBare: 0 };
  for (const transcript of conversations) {
    const archive = recordingStore();
    const conversation = variant.conversation(meter, archive);
    const summariesBefore = meter.calls;
    // One conversation, one provider cache: summaries and model calls share it.
    const meters = newMeters();
    const openingAt = transcript.messages.findIndex((m) => m.role === 'user');
    const opening = transcript.messages[openingAt]?.content;
    const entries = fromOpenAIChat(transcript.messages);
    const retention = referenceRetention(entries);
    const notInPrompt: string[] = [];
    let at = 0;
    for (let i = 1; i < transcript.messages.length; i++) {
      if (transcript.messages[i]!.role !== 'assistant') continue;
      at += CALL_INTERVAL_MS;
      const history = transcript.messages.slice(0, i);
      if (variant.estimate && WINDOW === BENCH_WINDOW) {
        const truth = reference(history);
        r.errors.push((variant.estimate(history) - truth) / truth);
      }
      const summarized = meter.inputTokens;
      let sent: Entry[];
      try {
        sent = await conversation.send(history);
      } catch {
        // The tool ended the run (Mastra's TokenLimiter when no message fits): no call was made.
        r.calls++;
        r.failed++;
        for (const { identifier } of retention.needed(i)) notInPrompt.push(identifier);
        continue;
      }
      if (meter.inputTokens > summarized) {
        // The summaries this call waited for, billed as the model calls they are (uncached).
        billAll(meters, {
          prompt: [{ id: `summary-${summaryPrompts++}`, tokens: meter.inputTokens - summarized }],
          at,
        });
      }
      r.calls++;
      const tools = conversation.tools?.() ?? [];
      const tokens = exact(sent) + counter.rawTools(tools);
      r.billed += tokens;
      billAll(meters, { prompt: sentBlocks(sent, tools), outputTokens: counter.raw(entries[i]!), at });
      if (tokens > BUDGET) r.over++;
      for (const reference of retention.record(i, promptText({ entries: sent }), {
        overBudget: tokens > BUDGET,
      })) {
        if (!reference.inPrompt) notInPrompt.push(reference.identifier);
        if (i - reference.firstAt > 50) {
          r.retention.far++;
          if (reference.inPrompt) r.retention.farInPrompt++;
        }
      }
      if (pairingViolation(sent.filter((e) => e.role !== 'system'))) r.orphaned++;
      const newest = history.at(-1);
      if (
        newest?.role === 'tool' &&
        !sent.some((e) => e.parts.some((p) => p.type === 'tool-result' && p.callId === newest.tool_call_id))
      )
        r.withoutNewestResult++;
      // tau2's agent speaks first: the opening request is checked once it is in the history.
      if (
        typeof opening === 'string' &&
        i > openingAt &&
        !sent.some((e) => e.parts.some((p) => p.type === 'text' && p.text === opening))
      )
        r.openingKept = false;
    }
    r.cacheAdjusted += meters.read.totals.cost;
    r.cacheAdjustedWrite += meters.write.totals.cost;
    r.usd += meters.usd.totals.cost;
    r.usdNoBreakpoints += meters.usdBare.totals.cost;
    billedInput.input += meters.usd.totals.inputTokens;
    billedInput.cached += meters.usd.totals.cachedTokens;
    billedInput.cachedBare += meters.usdBare.totals.cachedTokens;
    input += meters.read.totals.inputTokens;
    cached += meters.read.totals.cachedTokens;
    r.retention.needed += retention.totals.needed;
    r.retention.inPrompt += retention.totals.inPrompt;
    for (const distance of ['11 to 50', 'over 50'] as const) {
      r.retention.beyond10 += retention.totals.byDistance[distance].needed;
      r.retention.beyond10InPrompt += retention.totals.byDistance[distance].inPrompt;
    }
    // A policy that compacts by summarizing compacts once per summarizer call.
    const compacted =
      conversation.compactions?.() ??
      (meter.calls > summariesBefore ? meter.calls - summariesBefore : undefined);
    if (compacted !== undefined) r.compactions = (r.compactions ?? 0) + compacted;
    // What left the prompt is recallable only if the variant archived it (checked at the end:
    // whatever a prompt lost was archived before that prompt was sent, or never).
    const archived = archive.archived.join('\n');
    r.retention.recallable +=
      retention.totals.inPrompt + notInPrompt.filter((identifier) => archived.includes(identifier)).length;
  }
  r.cachedShare = cached / input;
  r.billedShare = billedInput.cached / billedInput.input;
  r.billedShareNoBreakpoints = billedInput.cachedBare / billedInput.input;
  return r;
}

const results: Result[] = [];
// BENCH_ONLY=<regex> runs the variants whose name matches (while tuning a policy).
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
// BENCH_LONG_ONLY=1 runs the long runs alone and writes bench/long-runs.md only.
const longOnly = Boolean(process.env.BENCH_LONG_ONLY);
for (const variant of variants.filter(
  (v) => !longOnly && (!only || only.test(`${v.framework}: ${v.name}`)),
)) {
  progress(`${variant.framework}: ${variant.name}`);
  const overhead = await measureOverhead(variant);
  const byWindow: Replayed[] = [];
  for (const window of REPLAY_WINDOWS) {
    WINDOW = window;
    BUDGET = budgetOf(window);
    byWindow.push(await replayAll(variant));
  }
  WINDOW = BENCH_WINDOW;
  BUDGET = BENCH_BUDGET;
  const errors = byWindow[0]!.errors;
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
    byWindow,
  });
}

// ---------------------------------------------------------------------------------------------
// Long runs: thousands of calls, where a policy's steady state shows

/** The long runs: the five transcripts back to back, and one task that keeps re-reading its start (2,000 and 4,000 messages each). */
// BENCH_LONG_RUNS=<regex> runs the long runs whose name matches (to split the section across processes).
const longOnlyRuns = process.env.BENCH_LONG_RUNS ? new RegExp(process.env.BENCH_LONG_RUNS) : undefined;
const longRuns = [
  backToBackRun(transcripts, 2_000),
  backToBackRun(transcripts, 4_000),
  revisitingRun(transcripts, 2_000),
  revisitingRun(transcripts, 4_000),
].filter((run) => !longOnlyRuns || longOnlyRuns.test(run.name));
/** Baton's defaults, the two baselines, and each framework's own tool that keeps a run within its budget. */
const longVariantNames = new Set([
  'Baton `middleware`',
  'delete oldest (sliding window to the budget)',
  'compaction every 10 calls (Baton ladder, no threshold)',
  '`prepareStep` + `pruneMessages` (cookbook, chars/4)',
  '`summarizationMiddleware` (trigger 80% of budget, keep 20)',
  '`contextEditingMiddleware` (default `ClearToolUsesEdit`)',
  '`TokenLimiterProcessor` (limit = budget)',
]);
const LONG_WINDOWS = [16_000, 32_000];
const longResults: Array<{ run: string; messages: number; variant: Variant; replayed: Replayed }> = [];
for (const run of longRuns)
  for (const window of LONG_WINDOWS)
    for (const variant of variants.filter(
      (v) => longVariantNames.has(v.name) && (!only || only.test(`${v.framework}: ${v.name}`)),
    )) {
      progress(`long run: ${run.name} at ${window / 1000}k: ${variant.framework}: ${variant.name}`);
      WINDOW = window;
      BUDGET = budgetOf(window);
      longResults.push({
        run: run.name,
        messages: run.messages.length,
        variant,
        replayed: await replayAll(variant, [run]),
      });
    }
WINDOW = BENCH_WINDOW;
BUDGET = BENCH_BUDGET;

// ---------------------------------------------------------------------------------------------
// Output

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? `${fmt(n)} ms` : `${n.toFixed(n >= 10 ? 1 : 2)} ms`);
const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
const date = new Date().toISOString().slice(0, 10);
const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}`;
const pctOf = (part: number, whole: number) =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;
const nameOf = (r: Result) => (r.variant.baton ? `**${r.variant.name}**` : r.variant.name);
/** The no-compaction run every cost is compared with (the same prompts in every framework). */
const noCompactionAt = (window: number) =>
  results
    .find((r) => r.variant.framework === 'AI SDK' && r.variant.name === 'no context tool')
    ?.byWindow.find((w) => w.window === window);
const ratioOf = (w: Replayed) => {
  const none = noCompactionAt(w.window);
  return none ? `${(w.cacheAdjusted / none.cacheAdjusted).toFixed(2)}x` : 'n/a';
};

const header = `| framework | variant | per call, 1,000 msgs (median / p99) | per call, 5,000 msgs (median / p99) | token-count error vs exact BPE (mean; range) | calls over budget | calls that threw | calls with orphaned tool results | calls without the newest tool result | opening request kept | input tokens billed | cache-adjusted, 0.1x reads | vs no compaction | with 1.25x writes | cached share | read from cache, Anthropic rules, Baton's breakpoints | USD (${USD_MODEL}), Baton's breakpoints | USD, host sets no breakpoints | summarizer calls (input tokens) |`;
const rows = results.map((r) => {
  const w = r.byWindow[0]!;
  const cell = (size: number) => `${ms(r.overhead[size]!.median)} / ${ms(r.overhead[size]!.p99)}`;
  return `| ${r.variant.framework} | ${nameOf(r)} | ${cell(1_000)} | ${cell(5_000)} | ${r.error ? `${pct(r.error.mean)}; ${pct(r.error.min)} to ${pct(r.error.max)}` : 'n/a'} | ${w.over} of ${w.calls} | ${w.failed} | ${w.orphaned} | ${w.withoutNewestResult} | ${w.openingKept ? 'yes' : 'no'} | ${fmt(w.billed)} | ${fmt(w.cacheAdjusted)} | ${ratioOf(w)} | ${fmt(w.cacheAdjustedWrite)} | ${(100 * w.cachedShare).toFixed(1)}% | ${(100 * w.billedShare).toFixed(1)}% | $${w.usd.toFixed(2)} | $${w.usdNoBreakpoints.toFixed(2)} | ${w.summarizer.calls} (${fmt(w.summarizer.inputTokens)}) |`;
});
const retentionHeader =
  '| framework | variant | window | calls over budget | references in the prompt | in the prompt or recallable | first seen over 50 messages back, in the prompt | cache-adjusted, 0.1x reads | vs no compaction |';
const retentionRows = results.flatMap((r) =>
  r.byWindow.map(
    (w) =>
      `| ${r.variant.framework} | ${nameOf(r)} | ${fmt(w.window / 1000)}k | ${w.over} of ${w.calls} | ${pctOf(w.retention.inPrompt, w.retention.needed)} | ${pctOf(w.retention.recallable, w.retention.needed)} | ${pctOf(w.retention.farInPrompt, w.retention.far)} | ${fmt(w.cacheAdjusted)} | ${ratioOf(w)} |`,
  ),
);
const longHeader =
  '| run | window | framework | variant | calls | refs in prompt | first seen over 10 messages back, in prompt | in prompt or recallable | compactions per 100 calls | cache-adjusted, 0.1x reads | vs every 10 calls | calls over budget |';
const longRows = longResults.map(({ run, messages, variant, replayed: w }) => {
  const interval = longResults.find(
    (o) =>
      o.run === run && o.replayed.window === w.window && o.variant.name.startsWith('compaction every 10'),
  );
  return `| ${run} (${fmt(messages)}) | ${fmt(w.window / 1000)}k | ${variant.framework} | ${variant.baton ? `**${variant.name}**` : variant.name} | ${fmt(w.calls)} | ${pctOf(w.retention.inPrompt, w.retention.needed)} | ${pctOf(w.retention.beyond10InPrompt, w.retention.beyond10)} | ${pctOf(w.retention.recallable, w.retention.needed)} | ${w.compactions === undefined ? '–' : ((100 * w.compactions) / w.calls).toFixed(1)} | ${fmt(w.cacheAdjusted)} | ${interval ? `${(w.cacheAdjusted / interval.replayed.cacheAdjusted).toFixed(2)}x` : 'n/a'} | ${w.over} |`;
});
const longMarkdown = `## Long runs

Measured ${date} on ${machine}. Conversations of thousands of calls built from \`../shared/corpus/transcripts\` (\`test/support/bench-histories.ts\`): the five transcripts back to back, again and again, tool-call ids suffixed per round (\`backToBackRun\`, 2,000 and 4,000 messages), and one task that at the start of every later round re-reads three of the first round's tool calls, results as they were, and the answer that used them (\`revisitingRun\`, 2,000 and 4,000 messages), each replayed as one agent loop (a model call before every assistant message) at windows of ${LONG_WINDOWS.map((w) => fmt(w)).join(' and ')} tokens. Refs: as below (\`referenceRetention\`); first seen over 10 messages back: the references whose first tool result or user message lies more than 10 messages before the call. Compactions: calls whose prompt a compaction changed (Baton's engine ran a stage and kept its decisions; until 2026-12-02 a compaction dropped for not repaying its cache write counted too), or where a summarizing tool summarized; '–' for policies that edit every prompt. Cost: the cache-adjusted column below (core's \`costMeter\`), and that over the fixed-interval policy's on the same run and window.

${longHeader}
|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${longRows.join('\n')}
`;
const first = results[0]?.byWindow;
const markdown = `# Baton vs the frameworks' own context tools

Measured ${date} on ${machine}, one run of \`pnpm bench\` (\`test/bench/side-by-side.bench.ts\`).
Per-call overhead: one model call through the framework's real path with its mock model, on histories of 1,000 and 5,000 messages generated from the transcripts (warm, a new question each call), at a ${fmt(BENCH_WINDOW)}-token window.
Everything else: the twelve real conversations in \`../shared/corpus\` (five transcripts, seven sessions in their OpenAI form) replayed as agent loops, a model call before every assistant message (${first?.[0]?.calls} calls per variant and window), at windows of ${REPLAY_WINDOWS.map((w) => fmt(w)).join(' and ')} tokens (input budgets ${REPLAY_WINDOWS.map((w) => fmt(budgetOf(w))).join(' and ')}).
Token-count error: the variant's own estimate against tiktoken o200k over what the provider tokenizes, plus 3 tokens of framing per message.
Calls that threw: the variant ended the run instead of sending a prompt (not billed).
Calls without the newest tool result: calls right after a tool result whose prompt does not carry it (the model cannot see what it just asked for).
Input tokens billed: exact BPE of every prompt sent, summed. The cost columns come from core's \`costMeter\`, calls ${CALL_INTERVAL_MS / 1000} s apart. Cache-adjusted (provider-neutral): the leading messages a prompt shares byte for byte with a live earlier prompt of the conversation at 0.1x, the rest at 1x, in input-token equivalents; vs no compaction: that over the same with no context tool; with 1.25x writes: every uncached token at 1.25x; cached share: the share of input read that way. Read from cache and USD: as Anthropic bills ${USD_MODEL} (${usdRules.description}; registry prices per million tokens: input $${usdPricing.input}, cache read $${usdPricing.cacheRead}, 5-minute cache write $${usdPricing.cacheWrite}, output $${usdPricing.output}; each call's output is the transcript's assistant message), with breakpoints where Baton places them (the end of the stable prefix and the newest message before its notices; for the other variants, as if their host placed them there) and with none (a host that sets none caches nothing on Anthropic). Summaries are billed as uncached calls of the size each variant gave its summarizer (Baton's default summarizer is extractive and calls no model, so this overstates Baton's cost).

## At ${fmt(BENCH_WINDOW)} tokens

${header}
|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

## Reference retention, at both windows

When the agent's message at a call uses an identifier (a path, a symbol, an error code, an id, a number, a quoted string) that first appeared in an earlier tool result or user message, it needed it there (\`referenceRetention\` in \`@baton/cli\`; ${fmt(first?.[0]?.retention.needed ?? 0)} needed references). A variant retained it if the prompt it sent contains it; a prompt over the budget retains nothing (the provider refuses it). Recallable: in the prompt, or in what the variant archived (only Baton archives).

${retentionHeader}
|---|---|---:|---:|---:|---:|---:|---:|---:|
${retentionRows.join('\n')}

${longMarkdown}`;

function chart(): string {
  const W = 900;
  const rowH = 26;
  const left = 300;
  const H = 60 + results.length * rowH;
  const maxOver = Math.max(1, ...results.map((r) => r.byWindow[0]!.over));
  const logMax = Math.log10(Math.max(...results.map((r) => r.overhead[1_000]!.median)) * 2);
  const logMin = Math.log10(Math.min(...results.map((r) => r.overhead[1_000]!.median)) / 2);
  const barW = (W - left - 40) / 2 - 20;
  const bars = results.map((r, i) => {
    const y = 40 + i * rowH;
    const color = r.variant.baton ? '#1a73e8' : '#9aa0a6';
    const overW = (r.byWindow[0]!.over / maxOver) * barW;
    const msW = ((Math.log10(r.overhead[1_000]!.median) - logMin) / (logMax - logMin)) * barW;
    // The short name: the options in parentheses are in the table.
    const label = `${r.variant.framework}: ${r.variant.name.replace(/\s*\(.*\)$/, '').replace(/[`*]/g, '')}`;
    return `<text x="${left - 8}" y="${y + 14}" text-anchor="end" font-size="12">${label.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>
<rect x="${left}" y="${y + 3}" width="${Math.max(1, overW).toFixed(1)}" height="16" fill="${color}"/><text x="${left + Math.max(1, overW) + 4}" y="${y + 15}" font-size="11">${r.byWindow[0]!.over}</text>
<rect x="${left + barW + 40}" y="${y + 3}" width="${Math.max(1, msW).toFixed(1)}" height="16" fill="${color}"/><text x="${left + barW + 44 + Math.max(1, msW)}" y="${y + 15}" font-size="11">${ms(r.overhead[1_000]!.median)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui,sans-serif">
<title>Calls over the budget and per-call cost, Baton vs each framework's own context tools</title>
<rect width="${W}" height="${H}" fill="#fff"/>
<text x="${left}" y="24" font-size="13" font-weight="bold">calls over the budget (of ${results[0]?.byWindow[0]?.calls}, at 32k)</text>
<text x="${left + barW + 40}" y="24" font-size="13" font-weight="bold">per call at 1,000 messages (log scale)</text>
${bars.join('\n')}
</svg>
`;
}

const outDir = fileURLToPath(new URL('../../bench/', import.meta.url));
mkdirSync(outDir, { recursive: true });
writeFileSync(`${outDir}long-runs${process.env.BENCH_LONG_RUNS ? '.partial' : ''}.md`, longMarkdown);
if (longOnly) {
  console.log(longMarkdown);
  progress('wrote bench/long-runs.md');
} else {
  writeFileSync(`${outDir}results.md`, markdown);
  writeFileSync(`${outDir}results.svg`, chart());
  console.log(markdown);
  progress('wrote bench/results.md, bench/results.svg and bench/long-runs.md');
}

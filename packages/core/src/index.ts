export { BatonToolError, type NeutralTool } from './agent-tools.ts';
export type { ArchiveApi } from './archive.ts';
export { type Baton, createBaton, type WindowedSettings, type WindowGiven } from './baton.ts';
export {
  ANTHROPIC_LOOKBACK_BLOCKS,
  ANTHROPIC_MAX_BREAKPOINTS,
  type CacheBreakpoint,
  type CacheBreakpointInput,
  cacheBreakpoints,
  type HostBreakpoint,
  stablePrefixEnd,
} from './cache-breakpoints.ts';
export {
  type AutomaticCacheRules,
  anthropicCacheRules,
  type BreakpointCacheRules,
  type CacheRules,
  type CacheTtl,
  cacheRulesFor,
  geminiCacheRules,
  type NoCacheRules,
  openaiCacheRules,
  prefixCacheRules,
} from './cache-rules.ts';
export { type CallBudget, resolveCallBudget } from './call-budget.ts';
export { checkedStore, hasLoneSurrogate } from './checked-store.ts';
export type { Checkpoint } from './checkpoint.ts';
export {
  type BilledCall,
  type CostMeter,
  type CostMeterOptions,
  type CostTotals,
  costMeter,
  type PromptBlock,
  promptBlocks,
  tokenPricing,
  withBreakpoints,
} from './cost-meter.ts';
export { BatonConfigError, BatonInputError, BatonModelError, BatonSessionError } from './errors.ts';
export type { BatonEvent, BatonEventBody, BatonEventType, NoticeFacts } from './events.ts';
export type { Decision, FoldDecision, Ledger, ReplaceDecision } from './ledger.ts';
export { lookupModel, MODEL_CATALOG, type ModelInfo, type ModelPricing } from './model-catalog.ts';
export type { NotesApi } from './notes.ts';
export { type NoteSection, type NotesBackend, type NotesDocument, storeNotes } from './notes-backend.ts';
export { UNFIT_STEP_PREFIX } from './notices.ts';
export { fromOpenAIChat, type OpenAIMessage, type OpenAIToolCall, toOpenAIChat } from './openai-chat.ts';
export type { BatonOptions, BatonSettings, ResolvedOptions } from './options.ts';
export { detectContextOverflow, type OverflowReport } from './overflow.ts';
export type {
  CallOutput,
  Notice,
  Outcome,
  Prepared,
  PreparedToSend,
  PreparedUnfit,
  PrepareInput,
} from './prepared.ts';
export { PROBE_EVIDENCE_MAX_CHARS } from './probe-step.ts';
export { promptCacheKey } from './prompt-cache-key.ts';
export { isProviderCompaction, providerCompactionOf } from './provider-context.ts';
export { providerOutputDefault } from './provider-output-defaults.ts';
export type { RecallInput, RecallResult } from './recall.ts';
export {
  type ProbeAnswer,
  type ProbeDecision,
  RUBRICS,
  type Rubric,
  type RubricCriterion,
  type RubricName,
} from './rubrics.ts';
export type {
  HostModel,
  ProbeJudge,
  ProbeRequest,
  ProbeUsage,
  SelfCompactOptions,
} from './self-compaction.ts';
export type { Session } from './session.ts';
export {
  type DefineStageOptions,
  defineStage,
  type Stage,
  type StageContext,
  type StageOptions,
  type StageResult,
} from './stage.ts';
export {
  defaultStages,
  degrade,
  dropStaleToolTraffic,
  foldToolResults,
  summarize,
  truncateOldest,
} from './stages/index.ts';
export {
  type ArchiveRecord,
  compareArchiveRecords,
  type PutResult,
  type Store,
  type VersionedDocument,
} from './store.ts';
export { memoryStore } from './stores/memory-store.ts';
export { type SqliteStoreOptions, sqliteStore } from './stores/sqlite-store.ts';
export type { Summarizer, SummarizerInput } from './summarizer.ts';
export { continuationSummarizer, type TextCompletion, VERBATIM_HEADING } from './summarizers/continuation.ts';
export { extractiveSummarizer } from './summarizers/extractive.ts';
export { TokenCounter, type ToolSchema } from './token-counter.ts';
export { type EncodingName, gptTokenizer, type Tokenizer, tiktokenTokenizer } from './tokenizer.ts';
export {
  createEntry,
  type Entry,
  type EntryMeta,
  entryText,
  firstLine,
  inputText,
  type OpaquePart,
  outputText,
  type Part,
  type Role,
  type TextPart,
  type ToolCallPart,
  type ToolResultPart,
} from './transcript.ts';

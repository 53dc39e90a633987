export { BatonToolError, type NeutralTool } from './agent/agent-tools.ts';
export type { NotesApi } from './agent/notes.ts';
export { UNFIT_STEP_PREFIX } from './agent/notices.ts';
export type { RecallInput, RecallResult } from './agent/recall.ts';
export { type CallBudget, resolveCallBudget } from './budget/call-budget.ts';
export type { BatonOptions, BatonSettings, ResolvedOptions } from './budget/options.ts';
export { providerOutputDefault } from './budget/provider-output-defaults.ts';
export type { BatonEvent, BatonEventBody, BatonEventType, NoticeFacts } from './contracts/events.ts';
export type {
  HostModel,
  ProbeAnswer,
  ProbeDecision,
  ProbeJudge,
  ProbeRequest,
  ProbeUsage,
  TextCompletion,
} from './contracts/host-model.ts';
export type {
  CallOutput,
  Notice,
  Outcome,
  Prepared,
  PreparedToSend,
  PreparedUnfit,
  PrepareInput,
  ToolSchema,
} from './contracts/prepared.ts';
export {
  type DefineStageOptions,
  defineStage,
  type Stage,
  type StageContext,
  type StageOptions,
  type StageResult,
} from './contracts/stage.ts';
export {
  type ArchiveRecord,
  compareArchiveRecords,
  type PutResult,
  type Store,
  type VersionedDocument,
} from './contracts/store.ts';
export type { Summarizer, SummarizerInput } from './contracts/summarizer.ts';
export {
  defaultStages,
  degrade,
  dropStaleToolTraffic,
  foldToolResults,
  summarize,
  truncateOldest,
} from './ladder/stages/index.ts';
export type { Decision, FoldDecision, Ledger, ReplaceDecision } from './ledger/ledger.ts';
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
} from './pricing/cache-rules.ts';
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
} from './pricing/cost-meter.ts';
export { lookupModel, MODEL_CATALOG, type ModelInfo, type ModelPricing } from './pricing/model-catalog.ts';
export {
  RUBRICS,
  type Rubric,
  type RubricCriterion,
  type RubricName,
} from './probes/rubrics.ts';
export type { SelfCompactOptions } from './probes/self-compaction.ts';
export {
  ANTHROPIC_LOOKBACK_BLOCKS,
  ANTHROPIC_MAX_BREAKPOINTS,
  type CacheBreakpoint,
  type CacheBreakpointInput,
  cacheBreakpoints,
  type HostBreakpoint,
  stablePrefixEnd,
} from './provider/cache-breakpoints.ts';
export {
  fromOpenAIChat,
  type OpenAIMessage,
  type OpenAIToolCall,
  toOpenAIChat,
} from './provider/openai-chat.ts';
export { detectContextOverflow, type OverflowReport } from './provider/overflow.ts';
export { promptCacheKey } from './provider/prompt-cache-key.ts';
export { type Baton, createBaton, type WindowedSettings, type WindowGiven } from './session/baton.ts';
export type { Checkpoint } from './session/checkpoint.ts';
export { PROBE_EVIDENCE_MAX_CHARS } from './session/probe-step.ts';
export type { Session } from './session/session.ts';
export type { ArchiveApi } from './stores/archive.ts';
export { checkedStore, hasLoneSurrogate } from './stores/checked-store.ts';
export { memoryStore } from './stores/memory-store.ts';
export {
  type NoteSection,
  type NotesBackend,
  type NotesDocument,
  storeNotes,
} from './stores/notes-backend.ts';
export { type SqliteStoreOptions, sqliteStore } from './stores/sqlite-store.ts';
export { continuationSummarizer, VERBATIM_HEADING } from './summarizers/continuation.ts';
export { extractiveSummarizer } from './summarizers/extractive.ts';
export { TokenCounter } from './tokens/token-counter.ts';
export { type EncodingName, gptTokenizer, type Tokenizer, tiktokenTokenizer } from './tokens/tokenizer.ts';
export { isProviderCompaction, providerCompactionOf } from './transcript/provider-context.ts';
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
} from './transcript/transcript.ts';
export { BatonConfigError, BatonInputError, BatonModelError, BatonSessionError } from './util/errors.ts';

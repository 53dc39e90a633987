export { archiveRecord } from './archive-record.ts';
export { contextLengthError } from './context-length-error.ts';
export { filler } from './filler.ts';
export { describeNotesBackendConformance } from './notes-conformance.ts';
export {
  type DegradeLine,
  type EvictionFigures,
  type EvictionIndexLine,
  expectedTokensLeft,
  type NoticeFigures,
  readNotices,
  type UnfitFigures,
  type WarningFigures,
} from './notices.ts';
export {
  anthropicCount,
  anthropicRuleViolations,
  anthropicWire,
  bedrockCount,
  bedrockRuleViolations,
  bedrockWire,
  countText,
  geminiCount,
  geminiRuleViolations,
  geminiWire,
  openaiChatCount,
  openaiChatRuleViolations,
  openaiChatWire,
  openaiResponsesCount,
  openaiResponsesRuleViolations,
  openaiResponsesWire,
  type ProviderWire,
  type ProviderWireOptions,
  providerRuleViolations,
  type WireBody,
  type WireCacheUsage,
  type WireFormat,
  type WireRequest,
  type WireScriptInput,
  type WireTurn,
} from './provider-wire/index.ts';
export {
  describeStoreConformance,
  type StoreCapability,
  type StoreConformanceOptions,
} from './store-conformance.ts';
export { hostileIds } from './store-conformance-ids.ts';
export { conversationOf, isNoticesText, trailerOf } from './trailer.ts';

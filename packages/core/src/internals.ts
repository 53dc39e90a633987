/**
 * `@baton/core/internals`: the glue Baton's own adapters share (prompt conversion, the
 * overflow-retry policy, transcript checks, rendering helpers). Not part of the public API:
 * it may change in any release. Applications import from `@baton/core` or their adapter.
 */
export { describeError, parseOptions } from './errors.ts';
export { buildGroups, type Group, type GroupKind } from './groups.ts';
export { entryIdentifiers, identifiersIn } from './identifiers.ts';
export {
  ANTHROPIC_MAX_EDGE,
  ANTHROPIC_MAX_PIXELS,
  anthropicImageTokens,
  base64ImageSize,
  dataUrlBase64,
  type ImageSize,
  imageSize,
  type OpenAIImageDetail,
  openAIImageTokens,
} from './image-tokens.ts';
export { LruCache } from './lru-cache.ts';
export {
  entriesToPrompt,
  isBatonBlock,
  isNoticesText,
  type PromptConversionCache,
  type PromptKeys,
  type PromptMessage,
  type PromptPart,
  promptToEntries,
  withSystemBlock,
  withTrailer,
} from './model-prompt.ts';
export { NOTES_HEADING } from './notes.ts';
export { NOTICES_HEADING, renderNotices, unfitStepMessage } from './notices.ts';
export {
  callWithOverflowRecovery,
  type OverflowRecoverySpec,
  pendingUnfit,
  type UnfitInfo,
  unfitOf,
} from './overflow-recovery.ts';
export { pairingViolation } from './projection-check.ts';
export {
  type CacheIdiom,
  cacheIdiomOf,
  type HintedCall,
  type PromptCacheContext,
  type PromptTool,
  withPromptCacheHints,
} from './prompt-cache-hints.ts';
export { MISSING_RESULT_TEXT, storableEntries } from './repair.ts';
export { probeAnswerSchema, probePrompt } from './rubrics.ts';
export { seededRandom } from './seeded-random.ts';
export { atClosedUnit } from './self-compaction.ts';
export { promptCacheOf } from './session-options.ts';
export { cloneJson } from './store.ts';
export { fromJsonBackend, type JsonBackendForm, toJsonBackend } from './stores/json-backend.ts';
export { loadSqlite } from './stores/sqlite-store.ts';
export { fromStoreLabel, storeLabel } from './stores/store-label.ts';
export { carryVerbatim, verbatimLines } from './summarizers/continuation.ts';
export { withTimeout } from './timeout.ts';
export { imageTokens, outputMedia, splitOutputMedia, UNKNOWN_IMAGE_TOKENS } from './tool-output-media.ts';
export { entryText } from './transcript.ts';

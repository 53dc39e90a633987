/**
 * `@baton/core/internals`: the glue Baton's own adapters share (prompt conversion, the
 * overflow-retry policy, transcript checks, rendering helpers). Not part of the public API:
 * it may change in any release. Applications import from `@baton/core` or their adapter.
 */

export { NOTES_HEADING } from './agent/notes.ts';
export { NOTICES_HEADING, renderNotices, unfitStepMessage } from './agent/notices.ts';
export { probeAnswerSchema } from './contracts/host-model.ts';
export { cloneJson } from './contracts/store.ts';
export { dashedVersions } from './pricing/model-catalog.ts';
export { probePrompt } from './probes/rubrics.ts';
export { atClosedUnit } from './probes/self-compaction.ts';
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
} from './provider/model-prompt.ts';
export {
  type CacheIdiom,
  cacheIdiomOf,
  type HintedCall,
  type PromptCacheContext,
  type PromptTool,
  withPromptCacheHints,
} from './provider/prompt-cache-hints.ts';
export {
  callWithOverflowRecovery,
  type OverflowRecoverySpec,
  pendingUnfit,
  type UnfitInfo,
  unfitOf,
} from './session/overflow-recovery.ts';
export { MISSING_RESULT_TEXT, storableEntries } from './session/repair.ts';
export { promptCacheOf } from './session/session-options.ts';
export { fromJsonBackend, type JsonBackendForm, toJsonBackend } from './stores/json-backend.ts';
export { loadSqlite } from './stores/sqlite-store.ts';
export { fromStoreLabel, storeLabel } from './stores/store-label.ts';
export { carryVerbatim, verbatimLines } from './summarizers/continuation.ts';
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
} from './tokens/image-tokens.ts';
export {
  imageTokens,
  outputMedia,
  splitOutputMedia,
  UNKNOWN_IMAGE_TOKENS,
} from './tokens/tool-output-media.ts';
export { buildGroups, type Group, type GroupKind } from './transcript/groups.ts';
export { entryIdentifiers, identifiersIn } from './transcript/identifiers.ts';
export { pairingViolation } from './transcript/projection-check.ts';
export { entryText } from './transcript/transcript.ts';
export { describeError, parseOptions } from './util/errors.ts';
export { LruCache } from './util/lru-cache.ts';
export { seededRandom } from './util/seeded-random.ts';
export { withTimeout } from './util/timeout.ts';

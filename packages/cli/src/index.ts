export { billingRules, type PolicyCosts, type PolicyKey } from './billing.ts';
export {
  batonBreakpointPositions,
  batonPromptBlocks,
  type SentPrompt,
  withoutBreakpoints,
} from './breakpoints.ts';
export { UsageError } from './cli-input.ts';
export {
  FORMATS,
  type FormatName,
  parseTranscript,
  readSession,
  type Transcript,
  TranscriptFormatError,
} from './formats.ts';
export { type FrontierPlacement, type FrontierPoint, placeOnFrontier } from './frontier.ts';
export { type Inspection, inspectTranscript } from './inspect.ts';
export type { Io } from './io.ts';
export { main, USAGE } from './main.ts';
export { heuristicJudge } from './offline-judge.ts';
export {
  type ReadOptions,
  type SessionFile,
  type SessionReader,
  sessionFile,
  type ThreadInfo,
} from './readers/session-file.ts';
export {
  modelCalls,
  type PolicySummary,
  type ReplayOptions,
  type ReplayResult,
  replay,
  type StepRecord,
} from './replay.ts';
export { describeEvent, renderReport } from './report.ts';
export {
  type Distance,
  type NeededReference,
  promptText,
  type RetentionCounts,
  type RetentionTotals,
  referenceRetention,
  retentionNote,
  retentionShare,
} from './retention.ts';
export { SETTING_FLAGS, type SettingName, type Settings } from './settings.ts';
export {
  DEFAULT_GRID,
  type Grid,
  type Measured,
  type TuneOptions,
  type TuneResult,
  type TuneRow,
  type TuneSession,
  tune,
} from './tune.ts';

import { claudeCodeReader } from './claude-code.ts';
import { codexReader } from './codex.ts';
import { langgraphCheckpointReader } from './langgraph-checkpoint.ts';
import { mastraStorageReader } from './mastra-storage.ts';
import { openAIResponsesReader } from './openai-responses.ts';
import type { SessionReader } from './session-file.ts';
import { smolagentsReader } from './smolagents.ts';
import { tau2Reader } from './tau2.ts';

/**
 * The session-file readers, tried in order before the message-array formats. Each one's
 * `mismatch` must be cheap and specific: the first reader that accepts a file reads it.
 */
export const SESSION_READERS: readonly SessionReader[] = [
  smolagentsReader,
  tau2Reader,
  claudeCodeReader,
  codexReader,
  openAIResponsesReader,
  langgraphCheckpointReader,
  mastraStorageReader,
];

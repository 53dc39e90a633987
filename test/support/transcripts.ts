import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenAIMessage } from '@baton/core';

/**
 * ../shared/corpus beside the repository (never copied into it), or `BATON_CORPUS_DIR` for a
 * checkout elsewhere (a git worktree).
 */
const CORPUS_ROOT = process.env.BATON_CORPUS_DIR
  ? `${process.env.BATON_CORPUS_DIR.replace(/\/$/, '')}/`
  : fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));

/** ../shared/corpus/transcripts. */
export const CORPUS_DIR = `${CORPUS_ROOT}transcripts/`;

export const corpusAvailable = existsSync(CORPUS_DIR);
export const CORPUS_MISSING = `../shared/corpus/transcripts not found at ${CORPUS_DIR}: real-transcript tests skipped`;

export interface Transcript {
  name: string;
  messages: OpenAIMessage[];
}

export function loadCorpus(): Transcript[] {
  if (!corpusAvailable) return [];
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ''),
      messages: (JSON.parse(readFileSync(`${CORPUS_DIR}${file}`, 'utf8')) as { messages: OpenAIMessage[] })
        .messages,
    }));
}

/** ../shared/corpus/sessions/openai: real sessions (Claude Code, Codex, smolagents, tau2) converted to OpenAI chat. */
export const SESSIONS_DIR = `${CORPUS_ROOT}sessions/openai/`;

/**
 * The twelve real conversations a replay bench runs: the five transcripts, then the seven
 * sessions in their OpenAI form (`*.openai.json`; the Anthropic forms repeat them).
 */
export function loadReplayCorpus(): Transcript[] {
  if (!corpusAvailable || !existsSync(SESSIONS_DIR)) return [];
  const sessions = readdirSync(SESSIONS_DIR)
    .filter((f) => f.endsWith('.openai.json'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.openai\.json$/, ''),
      messages: (JSON.parse(readFileSync(`${SESSIONS_DIR}${file}`, 'utf8')) as { messages: OpenAIMessage[] })
        .messages,
    }));
  return [...loadCorpus(), ...sessions];
}

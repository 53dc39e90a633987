import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAIMessage } from '@baton/core';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { SESSIONS_DIR } from '@baton/test-support/transcripts.ts';
import { jsonLines } from './session-file.ts';

/*
 * The real sessions the readers' tests read: ../shared/corpus/sessions beside the repository,
 * the files agents wrote (`originals`) and their conversions by hand (`openai`). Test support
 * only, like fixtures.test-support.ts: never built, never published.
 */

/** ../shared/corpus/sessions/originals: the files agents wrote (never copied into the repository). */
const ORIGINALS = join(SESSIONS_DIR, '../originals');

/**
 * True when the corpus (`originals` and their hand conversions in `openai`) is missing and the
 * tests of `what` skip: said on the console, an error under CI.
 *
 * @example describe.skipIf(skipWithoutCorpus('tau2 fixture tests'))('tau2 reader on the real results file', ...)
 */
export function skipWithoutCorpus(what: string): boolean {
  return skipUnless(
    existsSync(ORIGINALS) && existsSync(SESSIONS_DIR),
    `../shared/corpus/sessions (originals and openai, at ${join(SESSIONS_DIR, '..')}) for the ${what}`,
  );
}

/** The path of a real session file: `original('coding-codex-vscode-gomod.jsonl')`. */
export const original = (name: string) => join(ORIGINALS, name);

/** The lines of a real JSONL session, parsed. */
export const originalLines = <T>(name: string) =>
  jsonLines(readFileSync(original(name), 'utf8')).lines.map((l) => l.value as T);

/** The path of a real session's hand conversion: `conversion('customer-service-tau2-telecom.openai.json')`. */
export const conversion = (name: string) => join(SESSIONS_DIR, name);

/** The messages of a real session's hand conversion. */
export const converted = <T = OpenAIMessage>(name: string) =>
  (JSON.parse(readFileSync(conversion(name), 'utf8')) as { messages: T[] }).messages;

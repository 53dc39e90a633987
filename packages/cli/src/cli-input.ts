import { readFileSync } from 'node:fs';
import { lookupModel, MODEL_CATALOG } from '@baton/core';
import { dashedVersions } from '@baton/core/internals';
import { readSession, type Transcript } from './formats.ts';
import { sessionFile } from './readers/session-file.ts';

/** A usage problem: reported in one line with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A file that cannot be read or written: reported in one line, exit code 2. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

export const codeOf = (error: unknown) => (error as { code?: unknown }).code;

export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** C0 and C1 control characters, but newline and tab. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Control characters from a file name or a transcript never reach the terminal raw. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Reads a transcript file in any format `FORMATS` lists; a file that cannot be read is an `InputError`. */
export function readTranscript(file: string, thread: string | undefined): Transcript {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = codeOf(error);
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new InputError(`cannot read ${file}: ${why}`);
  }
  if (bytes.length === 0) throw new InputError(`${file} is empty`);
  return readSession(sessionFile(file, bytes), thread === undefined ? {} : { thread });
}

/** Tells the user which thread of a multi-thread file was read, and what the reader skipped. */
export function readNotes(transcript: Transcript): string {
  const lines: string[] = [];
  if (transcript.threads && transcript.threads.length > 1) {
    lines.push(`threads (--thread <id>):`);
    for (const t of transcript.threads)
      lines.push(`  ${t.id === transcript.thread ? '*' : ' '} ${printable(t.id)}: ${printable(t.label)}`);
  }
  for (const note of transcript.notes ?? []) lines.push(`note: ${printable(note)}`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** `--window`: 128k, 1m or a number of tokens. */
export function parseWindow(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([km]?)$/i.exec(raw.trim());
  if (!match)
    throw new UsageError(`--window: expected tokens like 128k, 1m or 32000, got ${JSON.stringify(raw)}`);
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[(match[2] as string).toLowerCase() as '' | 'k' | 'm'];
  const tokens = Math.round(Number(match[1]) * scale);
  if (tokens < 1_000)
    throw new UsageError(`--window: ${tokens} tokens is too small for a context window (1,000 at least)`);
  return tokens;
}

/**
 * What may follow a catalog id in a real model id: a snapshot date (`-20250514`, `-2024-08-06`,
 * Vertex's `@20250929`), `-latest`, a version (`-001`), then a Bedrock version (`-v1:0`).
 */
const VERSION_SUFFIX = /^(?:[-@]\d{4}(?:-?\d{2}-?\d{2})?|-latest|-\d{3})?(?:-v\d+(?::\d+)?)?$/;

/**
 * Which catalog model `--model` was taken for, when the catalog matched it by a shorter id its
 * name starts with and the rest is not a snapshot date: `gpt-5-turbo-fake` is sized and priced
 * as `gpt-5`, which a typo would otherwise hide. '' when the name is the model's own.
 */
export function modelNote(model: string | undefined): string {
  if (model === undefined) return '';
  const info = lookupModel(model);
  const id = Object.keys(MODEL_CATALOG).find((key) => MODEL_CATALOG[key] === info);
  if (id === undefined) return '';
  // Dotted versions as the AI Gateway writes them (`claude-sonnet-4.5`) match dashed ids.
  const name = dashedVersions(model.toLowerCase().replace(/^.*\//, ''));
  const at = name.indexOf(dashedVersions(id.toLowerCase()));
  if (at < 0) return '';
  const rest = name.slice(at + id.length);
  if (VERSION_SUFFIX.test(rest)) return '';
  return `note: --model ${printable(model)} is not in the catalog as it is: sized and priced as ${id}, the longest catalog id it starts with\n`;
}

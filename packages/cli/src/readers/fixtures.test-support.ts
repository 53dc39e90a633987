import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { createBaton, type Entry } from '@baton/core';
import { afterAll } from 'vitest';
import { main } from '../main.ts';
import { replay } from '../replay.ts';
import { type SessionFile, sessionFile } from './session-file.ts';

/*
 * What the session-file readers' tests build and run: files made from text, small images, a
 * run of the CLI that keeps what it prints (the real sessions are in corpus.test-support.ts).
 * Test support only: tsconfig.build.json leaves `*.test-support.ts` out of dist, so it is
 * never published.
 */

/** A session file holding `text`, as the CLI would read it from disk. */
export const textFile = (name: string, text: string): SessionFile =>
  sessionFile(name, new TextEncoder().encode(text));

/** Values as JSONL: one JSON line each, a newline after the last. */
export const jsonl = (values: readonly unknown[]) => `${values.map((v) => JSON.stringify(v)).join('\n')}\n`;

/** A directory for this test file's outputs, removed after its tests. */
export function scratchDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `baton-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The start of a PNG declaring `width` x `height`, as base64: signature and IHDR chunk (CRC
 * included), all an image-size reader looks at. `padding` bytes after it stand in for the
 * pixel data: long base64 that must never count as text.
 */
export function pngBase64(width: number, height: number, padding = 0): string {
  const png = Buffer.alloc(33 + padding, 7);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  png.writeUInt32BE(13, 8);
  png.write('IHDR', 12, 'latin1');
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.set([8, 2, 0, 0, 0], 24);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png.toString('base64');
}

/** What a tool that reads a file returns: its path, then 150 lines of code. */
export const filePage = (path: string) =>
  `${path}\n${Array.from({ length: 150 }, (_, i) => `line ${i} of ${path}: export const v${i} = ${i};`).join('\n')}`;

/**
 * Runs the CLI's `main` with an Io that keeps what it prints: `stdout` and `stderr` apart,
 * `output` both in the order printed.
 */
export async function runCli(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; output: string }> {
  let stdout = '';
  let stderr = '';
  let output = '';
  const code = await main(args, {
    out: (text) => {
      stdout += text;
      output += text;
    },
    err: (text) => {
      stderr += text;
      output += text;
    },
    isTTY: false,
  });
  return { code, stdout, stderr, output };
}

/**
 * What Baton makes of a reader's entries: the roles it prepares (a placeholder it adds shown
 * as its kind, `missing-result`) and the model calls a replay makes, in a 16k window.
 */
export async function throughBaton(entries: Entry[]): Promise<{ roles: string[]; calls: number }> {
  const prepared = await createBaton({ contextWindow: 16_000 }).session('t').prepare({ entries });
  const replayed = await replay(entries, { pinned: [], interval: 10, contextWindow: 16_000 });
  return {
    roles: prepared.entries.map((e) => String(e.meta?.synthetic ?? e.role)),
    calls: replayed.steps.length,
  };
}

/**
 * Cold resume: a new process (a serverless request, a restarted worker) preparing a long
 * conversation it has never seen in memory, reading the session from SQLite. With token
 * counts persisted by content hash it tokenizes nothing it counted before; the baseline is
 * the same prepare with nothing stored (an exact recount). Median of 7 runs each, every run
 * in a process of its own (no tokenizer cache carried over). Run: `pnpm bench`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBaton, createEntry, type Entry, memoryStore, sqliteStore } from '@baton/core';
import { filler } from '@baton/testing';
import { corpusAvailable, loadCorpus } from '../support/transcripts.ts';

const MESSAGES = 5_000;
const RUNS = 7;
const dir = mkdtempSync(join(tmpdir(), 'baton-cold-'));
const path = join(dir, 'cold.db');

// The texts of the corpus transcripts' messages (requests, replies, tool output), in order and
// repeated to 5,000 plain messages, each made distinct; filler text without the corpus.
const texts = corpusAvailable
  ? loadCorpus().flatMap((t) =>
      t.messages.map((m) =>
        typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m.tool_calls ?? ''),
      ),
    )
  : Array.from({ length: 97 }, (_, i) => filler(400 + (i % 7) * 60, i));
if (!corpusAvailable && process.argv[2] === undefined)
  console.error('../shared/corpus not found: filler text instead of the corpus messages');
const history = (): Entry[] =>
  Array.from({ length: MESSAGES }, (_, i) =>
    createEntry(i, i % 2 === 0 ? 'user' : 'assistant', `${texts[i % texts.length]} [${i}]`),
  );
const options = { contextWindow: 2_000_000 };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const mode = process.argv[2];
if (mode === 'recount' || mode === 'resume') {
  // One measurement in a process of its own: nothing of the tokenizer's caches carried over.
  const entries = history();
  const store = mode === 'resume' ? sqliteStore({ path: process.argv[3] as string }) : memoryStore();
  const ms = await timed(() =>
    createBaton({ ...options, store })
      .session('resume')
      .prepare({ entries }),
  );
  process.stdout.write(`${ms}\n`);
  process.exit(0);
}

// The conversation as a worker left it: its counts stored with its ledger.
const writer = sqliteStore({ path });
await createBaton({ ...options, store: writer })
  .session('resume')
  .prepare({ entries: history() });
await writer.close();

const self = fileURLToPath(import.meta.url);
const measure = (what: 'recount' | 'resume') =>
  Number(
    execFileSync(process.execPath, [...process.execArgv, self, what, path], { encoding: 'utf8' }).trim(),
  );
const recount: number[] = [];
const resume: number[] = [];
for (let run = 0; run < RUNS; run++) {
  recount.push(measure('recount'));
  resume.push(measure('resume'));
}
rmSync(dir, { recursive: true, force: true });

console.log(
  `# Cold resume of a ${MESSAGES.toLocaleString('en-US')}-message conversation (Node ${process.version}, ${new Date().toISOString()})\n`,
);
console.log('| first prepare in a new process | median | share of the recount |');
console.log('|---|---:|---:|');
console.log(`| exact recount (nothing stored) | ${median(recount).toFixed(0)} ms | 100% |`);
console.log(
  `| resumed from SQLite (counts persisted) | ${median(resume).toFixed(0)} ms | ${((median(resume) / median(recount)) * 100).toFixed(1)}% |`,
);

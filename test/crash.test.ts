import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBaton, type Ledger, type NotesDocument, sqliteStore } from '@baton/core';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRASH_PLAN, CRASH_ROUNDS, CRASH_WINDOW, crashHistory } from './support/crash-history.ts';

const KILLS = 200;
const dir = mkdtempSync(join(tmpdir(), 'baton-crash-'));
const bundle = join(dir, 'child.mjs');
const db = join(dir, 'agent.db');
const history = crashHistory(CRASH_ROUNDS);
const byKey = new Map(history.map((e) => [e.key, e]));

beforeAll(async () => {
  // One bundle, so each of the 200 children starts in a few tens of milliseconds.
  await build({
    entryPoints: [fileURLToPath(new URL('./support/crash-child.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // The workspace packages' TypeScript sources, as the tests use them.
    conditions: ['@baton/source'],
    outfile: bundle,
    logLevel: 'error',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a child until it prints `ready`, lets it work a random while, and kills it (or sees it finish). */
function runAndKill(sessionId: string, workMs: number): Promise<'killed' | 'done'> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [bundle, db, sessionId], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('ready') && !child.killed) setTimeout(() => child.kill('SIGKILL'), workMs);
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve('killed');
      else if (code === 0 && out.includes('done')) resolve('done');
      else reject(new Error(`child exited ${code}: ${err.slice(0, 2000)}`));
    });
  });
}

/** What a crash may never break: every evicted entry of a committed decision is archived verbatim; the notes parse. */
async function checkConsistent(sessionId: string) {
  const store = sqliteStore({ path: db });
  try {
    const ledger = await store.getDocument<Ledger>('baton/ledger', sessionId);
    let evicted = 0;
    for (const decision of ledger?.value.decisions ?? []) {
      for (const key of decision.kind === 'fold' ? [decision.key] : decision.keys) {
        const original = byKey.get(key);
        if (!original) continue; // the synthetic output of an earlier decision
        const archived = await store.getArchive(sessionId, key);
        expect(archived?.entry.parts, `evicted ${key} is archived`).toEqual(original.parts);
        evicted++;
      }
    }
    const notes = await store.getDocument<NotesDocument>('baton/notes', sessionId);
    const sections = new Map((notes?.value.sections ?? []).map((s) => [s.name, s.text]));
    if (notes) {
      expect(sections.get('plan')).toBe(CRASH_PLAN);
      expect(sections.get('progress') ?? 'step 0').toMatch(/^step \d+$/);
    }
    return { evicted, step: Number(/\d+/.exec(sections.get('progress') ?? '0')?.[0]) };
  } finally {
    await store.close();
  }
}

describe('crash safety on the SQLite store', () => {
  it(`SIGKILL at ${KILLS} random points of a long compaction loop loses nothing`, async () => {
    let session = 0;
    let kills = 0;
    const progress: number[] = [];
    let lastEvicted = 0;
    // Kills land at a random point of up to `window` ms of work. A restarted child's first step
    // (cold JIT, a compaction) can take longer than 60 ms on a slow machine: with a fixed window
    // such a step never completed and the loop stalled there, so the window doubles while a child
    // makes no progress and falls back once one does.
    let window = 60;
    let lastStep = -1;
    while (kills < KILLS) {
      const outcome = await runAndKill(`run-${session}`, Math.random() * window);
      const { evicted, step } = await checkConsistent(`run-${session}`);
      lastEvicted = Math.max(lastEvicted, evicted);
      if (outcome === 'killed') {
        kills++;
        progress.push(step);
        window = step > lastStep ? 60 : Math.min(window * 2, 960);
        lastStep = step;
      } else {
        session++; // finished: the next conversation starts on the same file
        window = 60;
        lastStep = -1;
      }
    }
    // The loop made progress across restarts and compacted (so kills landed around compactions).
    expect(session + progress.at(-1)! / CRASH_ROUNDS).toBeGreaterThan(0.5);
    expect(lastEvicted).toBeGreaterThan(20);

    // Finally, each conversation resumed in-process: every entry of the history is either in the
    // projection or in the archive, byte-identical.
    for (let s = 0; s <= session; s++) {
      const store = sqliteStore({ path: db });
      const resumed = createBaton({ contextWindow: CRASH_WINDOW, store }).session(`run-${s}`);
      const { step } = await checkConsistent(`run-${s}`);
      const prefix = history.slice(0, 2 * Math.max(step, 1) + 1);
      const prepared = await resumed.prepare({ entries: prefix });
      const projected = new Set(prepared.entries.map((e) => e.key));
      for (const entry of prefix) {
        if (projected.has(entry.key)) continue;
        expect((await resumed.archive.get(entry.key))?.entry.parts, `entry ${entry.key}`).toEqual(
          entry.parts,
        );
      }
      await store.close();
    }
  }, 600_000);
});

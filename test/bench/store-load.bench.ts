/**
 * Load through `prepare` with each store, on this machine, in one run: S sessions served
 * concurrently, each taking N agent steps (a compacting tool loop, a notes write every 5
 * steps). Reports sessions x steps per second and the per-call latency (p50/p99), and what
 * persistence adds over the in-memory store. Postgres runs when BATON_PG_URL is set or a
 * throwaway server can be started (.ci/postgres.sh). Run: `pnpm bench`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBaton, memoryStore, type Store, sqliteStore } from '@baton/core';
import { postgresStore } from '@baton/postgres';
import pg from 'pg';
import { crashHistory } from '../support/crash-history.ts';

const SESSIONS = 50;
const STEPS = 40;
const history = crashHistory(STEPS);
const dir = mkdtempSync(join(tmpdir(), 'baton-load-'));
const script = fileURLToPath(new URL('../../.ci/postgres.sh', import.meta.url));

let pgUrl = process.env.BATON_PG_URL;
let pgDir = '';
if (!pgUrl) {
  try {
    const out = execFileSync(
      'bash',
      ['-c', `source "${script}" start >&2 && echo "$BATON_PG_URL $BATON_PG_DIR"`],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    ).trim();
    [pgUrl, pgDir] = out.split(' ') as [string, string];
  } catch {
    console.error('no PostgreSQL: the postgres row is skipped');
  }
}

interface Row {
  name: string;
  stepsPerSecond: number;
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;

async function load(name: string, storeFor: (session: number) => Store): Promise<Row> {
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      const session = createBaton({ contextWindow: 6_000, store: storeFor(s) }).session(`load-${s}`);
      for (let step = 1; step <= STEPS; step++) {
        if (step % 5 === 0) await session.notes.write('progress', `step ${step}`);
        const t = performance.now();
        await session.prepare({ entries: history.slice(0, 2 * step + 1) });
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    stepsPerSecond: (SESSIONS * STEPS) / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

const rows: Row[] = [];
await load('warm-up', () => memoryStore()); // JIT and tokenizer caches: not measured
const shared = memoryStore();
rows.push(await load('memory', () => shared));
const sqlite = sqliteStore({ path: join(dir, 'load.db') });
rows.push(await load('SQLite (one file, one handle)', () => sqlite));
await sqlite.close();
if (pgUrl) {
  const pool = new pg.Pool({ connectionString: pgUrl, max: 10 });
  const store = postgresStore({ pool, schema: `baton_load_${process.pid}` });
  await store.migrate();
  rows.push(await load('Postgres (one pool of 10, loopback)', () => store));
  await pool.end();
}
if (pgDir) execFileSync('bash', [script, 'stop', pgDir]);
rmSync(dir, { recursive: true, force: true });

const base = rows[0] as Row;
console.log(`# Store load through prepare (Node ${process.version}, ${new Date().toISOString()})\n`);
console.log(
  `${SESSIONS} sessions served concurrently, ${STEPS} steps each (a compacting tool loop at a 6k window, a notes write every 5 steps).\n`,
);
console.log(
  '| store | sessions x steps per second | prepare p50 | prepare p99 | added by persistence, p50 / p99 |',
);
console.log('|---|---:|---:|---:|---:|');
for (const row of rows) {
  const added =
    row === base ? '–' : `${(row.p50 - base.p50).toFixed(2)} ms / ${(row.p99 - base.p99).toFixed(2)} ms`;
  console.log(
    `| ${row.name} | ${Math.round(row.stepsPerSecond).toLocaleString('en-US')} | ${row.p50.toFixed(2)} ms | ${row.p99.toFixed(2)} ms | ${added} |`,
  );
}

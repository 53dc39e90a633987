import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTranscript } from './cli-input.ts';
import { dominates } from './frontier.ts';
import { longLoop } from './long-loop.test-support.ts';
import { replay } from './replay.ts';
import { baton } from './run-main.test-support.ts';
import { gridSettings } from './tune.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-tune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const first = join(dir, 'a.json');
const second = join(dir, 'b.json');
writeFileSync(first, JSON.stringify(longLoop(40)));
writeFileSync(second, JSON.stringify(longLoop(25)));

interface Row {
  settings: Record<string, number>;
  cost: number;
  inPrompt: number;
  needed: number;
  overBudget: number;
  compactions: number;
  defaults: boolean;
  onFrontier: boolean;
  eligible: boolean;
  recommended: boolean;
}

describe('baton tune', () => {
  it('sweeps the grid over every file and places the defaults and the recommendation on the frontier (--json)', async () => {
    const run = await baton(
      'tune',
      first,
      second,
      '--window',
      '8k',
      '--grid',
      'compactAt=0.7,0.9',
      'targetAt=0.3,0.5',
      '--json',
    );
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/^tune: 2 sessions \(67 model calls\), window 8,000; 5 settings/);
    expect(run.err).toContain('setting 5/5: ');
    const result = JSON.parse(run.out) as {
      rows: Row[];
      baselines: Array<{ name: string; cost: number }>;
      recommended: Record<string, number>;
      defaults: Record<string, number>;
      defaultsOnFrontier: boolean;
      dominatingDefaults: Array<Record<string, number>>;
      steps: number;
    };
    expect(result.steps).toBe(67);
    // The defaults (added: the grid lacks them) and the four combinations.
    expect(result.rows.map((r) => r.settings)).toEqual([
      { compactAt: 0.8, targetAt: 0.3 },
      { compactAt: 0.7, targetAt: 0.3 },
      { compactAt: 0.7, targetAt: 0.5 },
      { compactAt: 0.9, targetAt: 0.3 },
      { compactAt: 0.9, targetAt: 0.5 },
    ]);
    expect(result.defaults).toEqual({ compactAt: 0.8, targetAt: 0.3 });
    // The settings reached the engine: they do not all measure the same.
    expect(new Set(result.rows.map((r) => r.cost)).size).toBeGreaterThan(1);
    expect(new Set(result.rows.map((r) => r.compactions)).size).toBeGreaterThan(1);
    // The frontier is what the numbers say it is.
    const eligible = result.rows.filter((r) => r.eligible);
    const point = (r: Row) => ({ cost: r.cost, kept: r.inPrompt, overBudget: r.overBudget });
    for (const row of result.rows)
      expect(row.onFrontier).toBe(
        row.eligible && !eligible.some((q) => q !== row && dominates(point(q), point(row))),
      );
    const defaults = result.rows[0] as Row;
    expect(result.defaultsOnFrontier).toBe(defaults.onFrontier);
    if (!defaults.onFrontier) expect(result.dominatingDefaults.length).toBeGreaterThan(0);
    const recommended = result.rows.filter((r) => r.recommended);
    expect(recommended).toHaveLength(1);
    expect(recommended[0]?.settings).toEqual(result.recommended);
    expect(recommended[0]?.onFrontier).toBe(true);
    expect(recommended[0]?.inPrompt).toBeGreaterThanOrEqual(defaults.inPrompt);
    for (const row of result.rows.filter((r) => r.onFrontier && r.inPrompt >= defaults.inPrompt))
      expect(recommended[0]?.cost).toBeLessThanOrEqual(row.cost);
    expect(result.baselines.map((b) => b.name)).toEqual(['no compaction', 'every 10 steps', 'delete oldest']);

    // Each row is what `replay` measures under those settings, summed over the files.
    const row = result.rows[3] as Row;
    let cost = 0;
    let inPrompt = 0;
    for (const path of [first, second]) {
      const alone = await replay(readTranscript(path, undefined).entries, {
        contextWindow: 8_000,
        settings: row.settings,
      });
      cost += alone.policies[0]?.cacheAdjusted ?? 0;
      inPrompt += alone.policies[0]?.retention.inPrompt ?? 0;
    }
    expect(row.cost).toBeCloseTo(cost, 6);
    expect(row.inPrompt).toBe(inPrompt);
  }, 120_000);

  it('prints the table sorted by cost, the marks and the options to paste', async () => {
    const run = await baton(
      'tune',
      second,
      '--window',
      '8k',
      '--grid',
      'compactAt=0.9',
      'minCompactionGain=0.05,0.2',
    );
    expect(run.code).toBe(0);
    const table = run.out.split('\n\n')[0] as string;
    const costs = table
      .split('\n')
      .slice(1)
      .map((line) => Number(/\s([\d,]+)\s+[\d.]+x\s/.exec(line)?.[1]?.replaceAll(',', '')));
    expect(costs.length).toBe(3);
    expect([...costs].sort((a, b) => a - b)).toEqual(costs);
    expect(table).toMatch(/ defaults/);
    expect(table).toMatch(/recommended/);
    expect(run.out).toMatch(/^ {2}createBaton\(\{ compactAt: [\d.]+, minCompactionGain: [\d.]+ \}\)$/m);
    expect(run.out).toMatch(
      /the defaults \(compactAt 0\.8, minCompactionGain 0\.3\) are (not )?on the frontier/,
    );
    expect(run.out).toContain('baselines, the same under every setting:');
  }, 120_000);

  it('skips combinations core refuses and refuses a grid it cannot run', async () => {
    const { settings, skipped } = gridSettings({ compactAt: [0.7, 0.8, 0.9], targetAt: [0.3, 0.5, 0.7] });
    expect(settings).toHaveLength(8); // 9 combinations, 1 refused; the defaults among them, first
    expect(settings[0]).toEqual({ compactAt: 0.8, targetAt: 0.3 });
    expect(skipped).toEqual([
      {
        settings: { compactAt: 0.7, targetAt: 0.7 },
        reason: 'targetAt: must be below compactAt (0.7), received 0.7',
      },
    ]);
    for (const [args, said] of [
      [['--grid', 'compactness=0.5'], '--grid: unknown setting "compactness"'],
      [['--grid', 'compactAt=0.7,x'], '--grid: compactAt: expected numbers'],
      [
        ['--grid', 'compactAt=1.5'],
        '--grid: compactAt=1.5 fits no combination: compactAt: compactAt must be <= 1',
      ],
      [['--grid', 'targetAt=0.9'], '--grid: targetAt=0.9 fits no combination'],
      [['--compact-at', '0.9'], 'tune does not take --compact-at'],
      [['--report', 'x.html'], 'tune does not take --report'],
      [['--thread', 'main'], 'tune does not take --thread'],
    ] as const) {
      const run = await baton('tune', first, ...args);
      expect(run.code).toBe(2);
      expect(run.err).toContain(said);
    }
    const none = await baton('tune', '--window', '8k');
    expect(none.code).toBe(2);
    expect(none.err).toContain('tune: which session files?');
    const missing = await baton('tune', join(dir, 'missing.json'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no such file');
  });
});

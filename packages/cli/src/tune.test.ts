import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelNote, readTranscript } from './cli-input.ts';
import { dominates } from './frontier.ts';
import { longLoop } from './long-loop.test-support.ts';
import { modelCalls, replay } from './replay.ts';
import { baton } from './run-main.test-support.ts';
import { gridSettings } from './tune.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-tune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const first = join(dir, 'a.json');
const second = join(dir, 'b.json');
writeFileSync(first, JSON.stringify(longLoop(40)));
writeFileSync(second, JSON.stringify(longLoop(25)));

/** A tau2 results file: two simulations, the first long enough to compact at 8k. */
function tau2File(): string {
  const simulation = (id: string, steps: number) => ({
    id,
    task_id: `task ${id}`,
    messages: Array.from({ length: steps }, (_, k) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `${id}c${k}`, name: 'lookup', arguments: { q: `item ${k}` } }],
      },
      { role: 'tool', id: `${id}c${k}`, content: `${'result line '.repeat(200)}${k}` },
      { role: 'user', content: `and item ${k + 1}?` },
    ]).flat(),
  });
  const file = join(dir, 'tau2.json');
  writeFileSync(
    file,
    JSON.stringify({
      info: { environment_info: { policy: 'Be helpful.' }, agent_info: {} },
      tasks: [],
      simulations: [simulation('s1', 30), simulation('s2', 3)],
    }),
  );
  return file;
}

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
        '--grid: compactAt=1.5 fits no combination: compactAt: expected a share of the input budget in (0, 1], e.g. 0.8 for 80%, received 1.5',
      ],
      [['--grid', 'targetAt=0.9'], '--grid: targetAt=0.9 fits no combination'],
      [['--compact-at', '0.9'], 'tune does not take --compact-at'],
      [['--report', 'x.html'], 'tune does not take --report'],
      [['--thread', 'main'], 'this file holds one'],
    ] as const) {
      const run = await baton('tune', first, ...args);
      expect(run.code).toBe(2);
      expect(run.err).toContain(said);
    }
    const several = await baton('tune', first, second, '--thread', '1');
    expect(several.code).toBe(2);
    expect(several.err).toContain('tune: --thread picks a conversation of one file');
    const none = await baton('tune', '--window', '8k');
    expect(none.code).toBe(2);
    expect(none.err).toContain('tune: which session files?');
    const missing = await baton('tune', join(dir, 'missing.json'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no such file');
    // A missing second file: refused before anything is said of the first.
    const secondMissing = await baton('tune', tau2File(), join(dir, 'missing.json'));
    expect(secondMissing.code).toBe(2);
    expect(secondMissing.err).toMatch(/^baton: cannot read .*missing\.json: no such file/);
  });

  it('sweeps the conversation --thread names in a file that holds several', async () => {
    const file = tau2File();
    const sweep = async (thread: string) => {
      const run = await baton(
        'tune',
        file,
        '--thread',
        thread,
        '--window',
        '8k',
        '--grid',
        'compactAt=0.8',
        '--json',
      );
      expect(run.code).toBe(0);
      return {
        err: run.err,
        result: JSON.parse(run.out) as { steps: number; compactedUnderAnySetting: boolean },
      };
    };
    const long = await sweep('0');
    const short = await sweep('1');
    expect(long.err).toMatch(/\* 0: task task s1/);
    expect(short.err).toMatch(/\* 1: task task s2/);
    expect(long.result.steps).toBe(modelCalls(readTranscript(file, '0').entries).length);
    expect(short.result.steps).toBe(modelCalls(readTranscript(file, '1').entries).length);
    expect(long.result.steps).toBeGreaterThan(short.result.steps);
    expect(long.result.compactedUnderAnySetting).toBe(true);
    expect(short.result.compactedUnderAnySetting).toBe(false);
  });

  it('says when no setting compacted: the sweep cannot tell them apart', async () => {
    const calm = await baton('tune', second, '--window', '128k', '--grid', 'compactAt=0.7,0.9');
    expect(calm.code).toBe(0);
    expect(calm.out).toContain(
      'no setting compacted: these sessions stay under every compactAt at this window',
    );
    const busy = await baton('tune', first, '--window', '8k', '--grid', 'compactAt=0.7,0.9');
    expect(busy.out).not.toContain('no setting compacted');
    // What the two retention columns count, with their counts (they differ).
    expect(busy.out).toMatch(
      /refs in prompt: of the [\d,]+ times the agent used a name an earlier message showed, the share its prompt still held; first seen >10 back: the same over the [\d,]+ whose name/,
    );
  });

  it('reads dotted versions as the catalog ids they name: a typo after one is still told', () => {
    expect(modelNote('anthropic/claude-sonnet-4.5')).toBe('');
    expect(modelNote('anthropic/claude-sonnet-4.5-fast-typo')).toContain(
      'is not in the catalog as it is: sized and priced as claude-sonnet-4-5',
    );
    expect(modelNote('gpt-4.1-mini')).toBe('');
  });

  it('tells which catalog model a --model name it does not hold as it is was taken for', async () => {
    const typo = await baton('tune', second, '--model', 'gpt-5-turbo-fake', '--grid', 'compactAt=0.8');
    expect(typo.code).toBe(0);
    expect(typo.err).toContain(
      '--model gpt-5-turbo-fake is not in the catalog as it is: sized and priced as gpt-5',
    );
    const replayed = await baton('replay', second, '--model', 'gpt-5-turbo-fake');
    expect(replayed.err).toContain('sized and priced as gpt-5');
    for (const model of [
      'gpt-4o',
      'gpt-4o-2024-08-06',
      'openai/gpt-5',
      'claude-sonnet-4',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'claude-sonnet-4-5@20250929',
    ]) {
      const run = await baton('tune', second, '--model', model, '--grid', 'compactAt=0.8');
      expect(run.code).toBe(0);
      expect(run.err).not.toContain('sized and priced as');
    }
  });
});

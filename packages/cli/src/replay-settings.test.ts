import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { CORPUS_DIR, CORPUS_MISSING, corpusAvailable } from '@baton/test-support/transcripts.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { longLoop } from './long-loop.test-support.ts';
import { baton } from './run-main.test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = join(dir, 'long.json');
writeFileSync(file, JSON.stringify(longLoop()));

/** Baton's compactions, from the summary table. */
const compactions = (out: string) => Number(/^Baton\s+(\d+)\s/m.exec(out)?.[1]);

describe('baton replay with engine settings', () => {
  it('passes the thresholds to the engine: compacting later compacts less often', async () => {
    const defaults = await baton('replay', file, '--window', '8k');
    const later = await baton('replay', file, '--window', '8k', '--compact-at', '0.95', '--target-at', '0.2');
    expect(defaults.code).toBe(0);
    expect(later.code).toBe(0);
    expect(compactions(defaults.out)).toBeGreaterThan(0);
    expect(compactions(later.out)).toBeLessThan(compactions(defaults.out));
    expect(later.out).toContain("Baton's settings: compactAt 0.95, targetAt 0.2, truncateAt 0.95");
    expect(defaults.out).not.toContain("Baton's settings");
    // The baselines keep core's defaults whatever Baton runs with.
    const row = (out: string, policy: string) => new RegExp(`^${policy} .*$`, 'm').exec(out)?.[0];
    expect(row(later.out, 'every 10 steps')).toBe(row(defaults.out, 'every 10 steps'));
    expect(row(later.out, 'delete oldest')).toBe(row(defaults.out, 'delete oldest'));
  });

  it('passes what is kept verbatim: more recent groups kept, a bigger floor', async () => {
    const few = await baton('replay', file, '--window', '8k', '--keep-recent', '1');
    const many = await baton('replay', file, '--window', '8k', '--keep-recent', '12');
    expect(few.code).toBe(0);
    expect(many.code).toBe(0);
    expect(compactions(many.out)).toBeGreaterThan(compactions(few.out));
  });

  it('shows the settings in the HTML report when they differ from the defaults', async () => {
    const report = join(dir, 'r.html');
    const run = await baton(
      'replay',
      file,
      '--window',
      '8k',
      '--min-compaction-gain',
      '0.2',
      '--report',
      report,
    );
    expect(run.code).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain('minCompactionGain 0.2');
  });

  it('refuses a bad value in one line naming the flag, before reading the file', async () => {
    for (const [args, said] of [
      [['--target-at', '0.9'], 'baton: --target-at: must be below --compact-at (0.8), received 0.9'],
      [
        ['--compact-at', '0.5', '--warn-at', '0.6'],
        'baton: --warn-at: must be at or below --compact-at (0.5)',
      ],
      [['--keep-recent', 'many'], 'baton: --keep-recent: expected a number, got "many"'],
      [['--keep', '1.5'], 'baton: --keep: '],
      [['--min-compaction-gain', '1'], 'baton: --min-compaction-gain: '],
    ] as const) {
      const run = await baton('replay', join(dir, 'missing.json'), ...args);
      expect(run.code).toBe(2);
      expect(run.err.startsWith(said)).toBe(true);
      expect(run.err).not.toMatch(/\n\s+at /);
    }
    const inspect = await baton('inspect', file, '--compact-at', '0.9');
    expect(inspect.code).toBe(2);
    expect(inspect.err).toContain('inspect does not take --compact-at');
    const json = await baton('replay', file, '--json');
    expect(json.code).toBe(2);
    expect(json.err).toContain('replay does not take --json (tune does)');
  });

  it.skipIf(skipUnless(corpusAvailable, CORPUS_MISSING))(
    'on a corpus transcript at 32k, a higher --compact-at compacts first later',
    async () => {
      // compactAt times a session's first compaction; the cache rent times the later ones.
      const firstStep = (progress: string) => Number(/^step (\d+): /m.exec(progress)?.[1]);
      const sympy = join(CORPUS_DIR, 'coding-openhands-sympy.json');
      const defaults = await baton('replay', sympy, '--window', '32k');
      const later = await baton('replay', sympy, '--window', '32k', '--compact-at', '0.95');
      expect(firstStep(defaults.err)).toBeGreaterThan(0);
      expect(firstStep(later.err)).toBeGreaterThan(firstStep(defaults.err));
    },
    60_000,
  );
});

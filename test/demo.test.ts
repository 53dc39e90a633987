import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'baton-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pnpm demo (end to end)', () => {
  it('runs the task through the AI SDK adapter, shows every feature in its timeline, and writes the report', async () => {
    const report = join(dir, 'report.html');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@baton/source', '--import', 'tsx', 'examples/demo/index.ts'],
      {
        cwd: root,
        env: { ...process.env, BATON_DEMO_REPORT: report },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    for (const feature of [
      'tool    load_skill: pinned',
      'notice  warning',
      'agent   notes(',
      'agent   compact(',
      'probe   CONTINUE',
      'probe   compacted before the backstop',
      'ladder  fold-tool-results',
      'ladder  drop-stale-tool-traffic',
      'ladder  summarize',
      'ladder  degrade',
      'notice  eviction',
      'notice  degrade',
      'agent   recall(',
    ])
      expect(stdout, feature).toContain(feature);
    // The step that previews the oversized result destroys nothing first: truncating older
    // context cannot make room for a result larger than the whole window.
    const degradeStep = /step\s+(\d+)\s+ladder\s+degrade/.exec(stdout)?.[1];
    expect(degradeStep, 'a degrade step').toBeDefined();
    const sameStep = stdout.split('\n').filter((l) => new RegExp(`step\\s+${degradeStep}\\s`).test(l));
    expect(sameStep.join('\n')).toContain('more than the whole window');
    expect(sameStep.join('\n')).not.toContain('truncate-oldest');
    expect(stdout).toContain('Fixed: the timezone offset is applied twice');
    expect(stdout).toMatch(/Baton\s+peak\s+[\d,]+\s+over budget\s+0\s+opening request lost\s+0/);
    expect(readFileSync(report, 'utf8')).toContain('<polyline class="series baton"');
  }, 120_000);
});

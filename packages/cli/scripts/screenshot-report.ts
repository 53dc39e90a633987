/// <reference lib="dom" />
/**
 * Writes `packages/cli/report.png`: the top of the report `pnpm demo` writes (the context
 * chart and the cost panel), as the package README shows it. Needs Debian's Chromium at
 * /usr/bin/chromium. From the repository root:
 *
 *   node --conditions=@baton/source --import tsx packages/cli/scripts/screenshot-report.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../../test/support/chromium.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const out = fileURLToPath(new URL('../report.png', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'baton-screenshot-'));
try {
  const report = join(dir, 'demo-report.html');
  execFileSync(
    process.execPath,
    ['--conditions=@baton/source', '--import', 'tsx', 'examples/demo/index.ts'],
    { cwd: root, env: { ...process.env, BATON_DEMO_REPORT: report }, stdio: 'ignore' },
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    // The report's width (960px charts in 24px margins) at 1.2x: a 1,210px image, sharp text.
    const width = 1_008;
    const page = await browser.newPage({ viewport: { width, height: 900 }, deviceScaleFactor: 1.2 });
    await page.goto(pathToFileURL(report).href);
    // From the title to the end of the cost panel: what the report says at a glance.
    const bottom = await page.evaluate(
      () => (document.querySelector('table.cost-panel') as Element).getBoundingClientRect().bottom,
    );
    await page.screenshot({ path: out, clip: { x: 0, y: 0, width, height: Math.ceil(bottom) + 8 } });
  } finally {
    await browser.close();
  }
  console.log(`${out}: ${Math.round(statSync(out).size / 1024)} KB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

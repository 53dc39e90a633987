/// <reference lib="dom" />
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fromOpenAIChat } from '@baton/core';
import { CHROMIUM, CHROMIUM_ARGS, ensureChromium } from '@baton/test-support/chromium.ts';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { filler } from '@baton/testing';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { replay } from './replay.ts';
import { renderReport } from './report.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const available = ensureChromium();

describe.skipIf(skipUnless(available, `Chromium at ${CHROMIUM}`))(
  'the HTML report in headless Chromium',
  () => {
    it('renders the chart with every series drawn, the thresholds and the event markers', async () => {
      const entries = fromOpenAIChat([
        { role: 'user', content: 'Audit all pages.' },
        ...Array.from({ length: 40 }, (_, i) => [
          {
            role: 'assistant' as const,
            content: null,
            tool_calls: [
              {
                id: `c${i}`,
                type: 'function' as const,
                function: { name: 'read', arguments: `{"page":${i}}` },
              },
            ],
          },
          { role: 'tool' as const, tool_call_id: `c${i}`, content: `page ${i}\n${filler(1_500, i)}` },
        ]).flat(),
        { role: 'assistant', content: 'done' },
      ]);
      const result = await replay(entries, { contextWindow: 8_000, pinned: [], interval: 10 });
      const file = join(dir, 'report.html');
      writeFileSync(
        file,
        renderReport(result, {
          file: 'audit.json',
          format: 'OpenAI Chat Completions',
          settings: 'window 8,000',
        }),
      );

      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
        const requests: string[] = [];
        page.on('request', (r) => {
          if (!r.url().startsWith('file:')) requests.push(r.url());
        });
        await page.goto(pathToFileURL(file).href);
        const drawn = await page.evaluate(() =>
          Array.from(document.querySelectorAll('svg polyline.series, svg polyline.cost-series'), (line) => ({
            series: line.getAttribute('class'),
            length: (line as SVGPolylineElement).getTotalLength(),
            width: line.getBoundingClientRect().width,
          })),
        );
        // The context chart and the cumulative cost chart, one line per policy in each.
        expect(drawn).toHaveLength(8);
        expect(drawn.filter((line) => line.series?.startsWith('cost-series '))).toHaveLength(4);
        for (const line of drawn) {
          expect(line.length, line.series ?? '').toBeGreaterThan(100);
          expect(line.width).toBeGreaterThan(500);
        }
        const markers = await page.locator('svg .marker').count();
        expect(markers).toBeGreaterThan(0);
        expect(await page.locator('svg text', { hasText: 'targetAt' }).count()).toBe(1);
        expect(await page.locator('table.events tr').count()).toBeGreaterThan(markers / 2);
        expect(requests).toEqual([]); // self-contained: nothing fetched
        const screenshot = join(dir, 'report.png');
        await page.locator('svg').first().screenshot({ path: screenshot });
        expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      } finally {
        await browser.close();
      }
    });
  },
);

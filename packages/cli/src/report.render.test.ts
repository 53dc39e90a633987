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
import { fmtShort } from './chart.ts';
import { type ReplayResult, replay } from './replay.ts';
import { describeEvent, renderReport } from './report.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const available = ensureChromium();

/**
 * Shaped like `pnpm demo`: page reads that Baton folds every few steps, and one log larger
 * than the budget late in the task, so no compaction ends near ten times the budget while
 * the other policies stay under it.
 */
const demoLike = () =>
  fromOpenAIChat([
    { role: 'user', content: 'Audit all pages.' },
    ...Array.from({ length: 40 }, (_, i) => [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          {
            id: `c${i}`,
            type: 'function' as const,
            function: { name: i === 30 ? 'logs' : 'read', arguments: `{"page":${i}}` },
          },
        ],
      },
      {
        role: 'tool' as const,
        tool_call_id: `c${i}`,
        content: `page ${i}\n${filler(i === 30 ? 150_000 : 4_000, i)}`,
      },
    ]).flat(),
    { role: 'assistant', content: 'done' },
  ]);

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  height: number;
  text?: string;
}

/** The context chart's geometry as drawn, in the page (serialized into it: no closure). */
function chartGeometry() {
  const svg = document.querySelector('svg') as SVGSVGElement;
  const box = (element: Element | null): Box => {
    const r = (element as Element).getBoundingClientRect();
    const text = element?.tagName === 'text' ? { text: element.textContent ?? '' } : {};
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, ...text };
  };
  return {
    svg: box(svg),
    plot: box(svg.querySelector('line.axis.y')),
    baton: box(svg.querySelector('polyline.series.baton')),
    none: box(svg.querySelector('polyline.series.none')),
    labels: Array.from(svg.querySelectorAll('text.threshold-label'), box),
    peak: Array.from(svg.querySelectorAll('text.peak-label'), box),
    ticks: Array.from(svg.querySelectorAll('text.tick'), box),
  };
}

/**
 * Every threshold labelled, top down in the order of the thresholds, inside the picture, and
 * no two labels (or a label and the peak's label or a tick) overlapping.
 */
function expectReadableLabels(chart: ReturnType<typeof chartGeometry>) {
  const topDown = chart.labels.slice().sort((a, b) => a.top - b.top);
  expect(topDown.map((l) => l.text?.split(' ')[0])).toEqual([
    'budget',
    'truncateAt',
    'compactAt',
    'warnAt',
    'targetAt',
  ]);
  const overlap = (a: Box, b: Box) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const texts = [...chart.labels, ...chart.peak, ...chart.ticks];
  for (const [i, a] of texts.entries()) {
    expect(a.left).toBeGreaterThanOrEqual(chart.svg.left);
    expect(a.right).toBeLessThanOrEqual(chart.svg.right);
    expect(a.top).toBeGreaterThanOrEqual(chart.svg.top);
    for (const b of texts.slice(i + 1))
      expect(overlap(a, b), `${a.text ?? 'tick'} overlaps ${b.text ?? 'tick'}`).toBe(false);
  }
}

let demoReplay: Promise<ReplayResult> | undefined;
/** The demo-like transcript replayed once, with probes, for every test that draws it. */
const replayed = () =>
  (demoReplay ??= replay(demoLike(), {
    contextWindow: 8_000,
    pinned: [],
    interval: 10,
    selfCompact: 'coding',
  }));

describe.skipIf(skipUnless(available, `Chromium at ${CHROMIUM}`))(
  'the HTML report in headless Chromium',
  () => {
    it('renders the chart with every series drawn, the thresholds and the event markers', async () => {
      const result = await replayed();
      // The shape the chart has to cope with: no compaction far above a budget the others keep.
      const peakOf = (key: string) => result.policies.find((p) => p.key === key)?.peak ?? 0;
      expect(peakOf('none')).toBeGreaterThan(8 * result.budget);
      expect(peakOf('baton')).toBeLessThanOrEqual(result.budget);
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
        expect(await page.locator('svg .marker.probe').count()).toBeGreaterThan(0);
        expect(await page.locator('svg text', { hasText: 'targetAt' }).count()).toBe(1);
        expect(requests).toEqual([]); // self-contained: nothing fetched
        const screenshot = join(dir, 'report.png');
        await page.locator('svg').first().screenshot({ path: screenshot });
        expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      } finally {
        await browser.close();
      }
    });

    it('reads at a glance: scaled to the policies within the budget, labels apart, costs and events per step', async () => {
      const result = await replayed();
      const file = join(dir, 'glance.html');
      writeFileSync(file, renderReport(result, { file: 'audit.json', format: 'OpenAI', settings: '' }));
      // The same replay with thresholds 1% of the budget apart: labels at their lines would overlap.
      const crowdedFile = join(dir, 'crowded.html');
      const { budget } = result;
      const crowded = {
        warn: 0.79 * budget,
        compact: 0.8 * budget,
        target: 0.78 * budget,
        truncate: 0.81 * budget,
      };
      writeFileSync(
        crowdedFile,
        renderReport(
          { ...result, thresholds: crowded },
          { file: 'audit.json', format: 'OpenAI', settings: '' },
        ),
      );
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
        await page.goto(pathToFileURL(crowdedFile).href);
        expectReadableLabels(await page.evaluate(chartGeometry));

        await page.goto(pathToFileURL(file).href);
        const chart = await page.evaluate(chartGeometry);
        expectReadableLabels(chart);
        // Baton's line uses more than half the plot's height (scaled to no compaction, a tenth).
        expect(chart.baton.height / chart.plot.height).toBeGreaterThan(0.5);
        // No compaction leaves the scale at the top, and says how high it went.
        expect(chart.none.top).toBeLessThan(chart.plot.top);
        expect(chart.peak).toHaveLength(1);
        const nonePeak = result.policies.find((p) => p.key === 'none')?.peak ?? 0;
        expect(chart.peak[0]?.text).toContain(`no compaction: peak ${fmtShort(nonePeak)} at step`);

        // The cost panel: a bar per policy, as long as its cost relative to no compaction's.
        const bars = await page.evaluate(() =>
          Array.from(document.querySelectorAll('table.cost-panel tr.cost-bar'), (row) => ({
            key: row.classList[1],
            ratio: row.querySelector('.ratio')?.textContent ?? '',
            width: (row.querySelector('td.bar i') as Element).getBoundingClientRect().width,
          })),
        );
        expect(bars.map((b) => b.key)).toEqual(['baton', 'deleteOldest', 'interval', 'none']);
        const cost = (key: string) => result.policies.find((p) => p.key === key)?.cacheAdjusted ?? 0;
        const shares = bars.map((bar) => cost(bar.key ?? '') / cost('none'));
        const widest = Math.max(...bars.map((bar) => bar.width));
        for (const [i, bar] of bars.entries()) {
          const share = shares[i] as number;
          expect(bar.ratio).toBe(`${share.toFixed(2)}×`);
          expect(bar.width / widest, bar.key).toBeCloseTo(share / Math.max(...shares), 2);
        }
        expect(bars.at(-1)?.ratio).toBe('1.00×');
        expect(shares[0]).toBeLessThan(1); // Baton's calls cost less than no compaction's

        // Events: one row per step that had any, each with all of that step's events.
        const rows = await page.evaluate(() =>
          Array.from(document.querySelectorAll('table.events tr.step-events'), (row) => ({
            step: Number(row.querySelector('td')?.textContent),
            items: row.querySelectorAll('li').length,
          })),
        );
        const described = result.steps
          .map((s) => ({ step: s.step, events: s.events.filter((e) => describeEvent(e)).length }))
          .filter((s) => s.events > 0);
        expect(rows.map((r) => r.step)).toEqual(described.map((s) => s.step));
        expect(rows.map((r) => Math.max(1, r.items))).toEqual(described.map((s) => s.events));
        expect(rows.some((r) => r.items >= 2)).toBe(true);
      } finally {
        await browser.close();
      }
    });
  },
);

describe('the cost panel', () => {
  it('shows USD next to the cost relative to no compaction when the model has prices', async () => {
    const result = await replay(demoLike().slice(0, 41), {
      model: 'gpt-4o',
      contextWindow: 8_000,
      pinned: [],
      interval: 4,
    });
    const html = renderReport(result, { file: 'audit.json', format: 'OpenAI', settings: '' });
    const panel = /<table class="cost-panel">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(panel).toContain('<th>USD (gpt-4o)</th>');
    for (const p of result.policies)
      expect(panel).toMatch(new RegExp(`<td>${p.name}</td>.*<td>\\$\\d+\\.\\d{4}</td>`));
  });
});

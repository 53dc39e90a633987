import type { PolicyKey } from './billing.ts';
import { escapeHtml, fmt, plot, SERIES } from './chart.ts';
import type { ReplayResult } from './replay.ts';

/** Dollars to four decimals below $10 (a single call costs cents), to cents above. */
export const usd = (dollars: number) => `$${dollars.toFixed(dollars < 10 ? 4 : 2)}`;
export const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

/** What the cost figures are in, and where USD comes from or why it is missing. */
export function costNote(result: ReplayResult): string {
  const units =
    "Cost: every model call billed on the prompt it sends, in input-token equivalents (new input 1, cached reads 0.1; '1.25x write' bills cache writes at 1.25), Baton's probes included.";
  const prices = result.pricing;
  if (prices) {
    const { input, output, cacheRead, cacheWrite } = prices;
    return `${units}\nUSD: ${result.model} at its registry prices per million tokens: input $${input}, output $${output}, cache read $${cacheRead ?? input}, cache write $${cacheWrite ?? input}.`;
  }
  return `${units}\nUSD: not shown: ${result.model ? `the registry has no prices for ${result.model}` : 'no --model names a priced model'}.`;
}

/** Cumulative cost per policy over the model calls, in input-token equivalents (cached reads at 0.1x). */
export function costChart(result: ReplayResult, labels: Record<PolicyKey, string>): string {
  const cumulative = (key: PolicyKey) => {
    let sum = 0;
    return result.steps.map((s) => {
      sum += s.cost[key];
      return sum;
    });
  };
  const series = SERIES.map(({ key }) => ({ key, values: cumulative(key) }));
  const max = Math.max(1, ...series.map((s) => s.values.at(-1) ?? 0)) * 1.05;
  const p = plot(result.steps.length, max);
  return p.svg(
    'cumulative cost per step, input-token equivalents',
    series.map(({ key, values }) =>
      p.line('cost-series', key, values, `${labels[key]}: ${fmt(values.at(-1) ?? 0)} token equivalents`),
    ),
  );
}

/** Totals per policy: both token-equivalent costs, USD when priced, the cached share of input. */
export function costTable(result: ReplayResult): string {
  const priced = result.pricing !== undefined;
  const rows = result.policies.map(
    (p) =>
      `<tr><td>${escapeHtml(p.name)}</td><td>${p.calls}</td><td>${fmt(p.cacheAdjusted)}</td><td>${fmt(p.cacheAdjustedWrite)}</td>${priced ? `<td>${usd(p.usd ?? 0)}</td>` : ''}<td>${percent(p.cachedShare)}</td></tr>`,
  );
  return `<table class="costs"><tr><th>policy</th><th>model calls</th><th>cost, cached reads 0.1x</th><th>with 1.25x writes</th>${priced ? '<th>USD</th>' : ''}<th>cached share of input</th></tr>
${rows.join('\n')}
</table>`;
}

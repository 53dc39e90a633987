import { CALL_INTERVAL_MS, type PolicyCosts, type PolicyKey } from './billing.ts';
import { escapeHtml, fmt, plot, SERIES } from './chart.ts';
import type { ReplayResult } from './replay.ts';

/** Dollars to four decimals below $10 (a single call costs cents), to cents above. */
export const usd = (dollars: number) => `$${dollars.toFixed(dollars < 10 ? 4 : 2)}`;
export const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

/** What the cost figures are in, which provider rules the bill follows, and where USD comes from or why it is missing. */
export function costNote(result: ReplayResult): string {
  const units =
    "Cost: every model call billed on the prompt it sends, Baton's probes included. Provider-neutral columns, in input-token equivalents: any shared prefix from 1,024 tokens read at 0.1, new input at 1 ('1.25x write' bills it at 1.25).";
  const breakpoints =
    result.rules.kind === 'breakpoints'
      ? " With breakpoints: each prompt marked where Baton places them (end of the stable prefix, newest message before the notices); 'no breakpoints': the host sets none, so nothing is cached."
      : result.rules.kind === 'automatic'
        ? ' Caching is automatic: breakpoints change nothing.'
        : '';
  const rules = `Billed by: ${result.rules.description}; calls ${CALL_INTERVAL_MS / 1000} s apart.${breakpoints}`;
  const prices = result.pricing;
  if (prices) {
    const { input, output, cacheRead, cacheWrite } = prices;
    return `${units}\n${rules}\nUSD: ${result.model} at its registry prices per million tokens: input $${input}, output $${output}, cache read $${cacheRead ?? input}, cache write $${cacheWrite ?? input}.`;
  }
  return `${units}\n${rules}\nUSD: not shown: ${result.model ? `the registry has no prices for ${result.model}` : 'no --model names a priced model'}.`;
}

/** The provider-rule columns of a summary: read share and USD, with and without breakpoints where they matter. */
export function billedColumns(
  result: ReplayResult,
): Array<{ head: string; cell: (p: PolicyCosts) => string }> {
  const both = result.rules.kind === 'breakpoints';
  return [
    { head: 'read from cache', cell: (p) => percent(p.billedCachedShare) },
    ...(both
      ? [
          {
            head: 'read, no breakpoints',
            cell: (p: PolicyCosts) => percent(p.billedCachedShareNoBreakpoints),
          },
        ]
      : []),
    ...(result.pricing ? [{ head: 'USD', cell: (p: PolicyCosts) => usd(p.usd ?? 0) }] : []),
    ...(result.pricing && both
      ? [{ head: 'USD, no breakpoints', cell: (p: PolicyCosts) => usd(p.usdNoBreakpoints ?? 0) }]
      : []),
  ];
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

/** Totals per policy: the provider-neutral costs, then the bill under the provider's rules. */
export function costTable(result: ReplayResult): string {
  const billed = billedColumns(result);
  const rows = result.policies.map(
    (p) =>
      `<tr><td>${escapeHtml(p.name)}</td><td>${p.calls}</td><td>${fmt(p.cacheAdjusted)}</td><td>${fmt(p.cacheAdjustedWrite)}</td><td>${percent(p.cachedShare)}</td>${billed.map((c) => `<td>${c.cell(p)}</td>`).join('')}</tr>`,
  );
  return `<table class="costs"><tr><th>policy</th><th>model calls</th><th>cost, cached reads 0.1x</th><th>with 1.25x writes</th><th>cached share of input</th>${billed.map((c) => `<th>${escapeHtml(c.head)}</th>`).join('')}</tr>
${rows.join('\n')}
</table>`;
}

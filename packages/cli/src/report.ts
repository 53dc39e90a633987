import type { BatonEvent } from '@baton/core';
import type { PolicyKey } from './billing.ts';
import { escapeHtml, fmt, plot, SERIES } from './chart.ts';
import { costChart, costNote, costTable } from './cost-report.ts';
import type { ReplayResult } from './replay.ts';
import { retentionNote, retentionShare } from './retention.ts';

/** One line per event worth a marker: what happened, in counts (events never carry content). */
export function describeEvent(event: BatonEvent): string | undefined {
  switch (event.type) {
    case 'stage-completed':
      return `${event.stage}: ${fmt(event.tokensBefore)} → ${fmt(event.tokensAfter)} tokens, ${event.entriesAffected} entries`;
    case 'probe-decided':
      return `probe (${event.rubric}): ${event.decision}${event.error ? ` (failed: ${event.error})` : ''}`;
    case 'self-compacted':
      return `self-compacted${event.early ? ' early' : ''}: ${fmt(event.tokensBefore)} → ${fmt(event.tokensAfter)} tokens`;
    case 'budget-exceeded':
      return `unfit: ${fmt(event.tokens)} of ${fmt(event.budget)} tokens`;
    case 'summarizer-failed':
    case 'stage-failed':
      return `${event.type}: ${event.error}`;
    case 'transcript-repaired':
      return `transcript repaired: ${event.orphanResults} orphaned results, ${event.missingResults} missing`;
    default:
      return undefined;
  }
}

/** Context tokens per model call for every policy, with the thresholds and a marker per event. */
function tokenChart(result: ReplayResult, labels: Record<PolicyKey, string>): string {
  const steps = result.steps;
  const max =
    Math.max(result.budget, ...steps.flatMap((s) => [s.baton, s.none, s.interval, s.deleteOldest])) * 1.05;
  const p = plot(steps.length, max);
  const lines = SERIES.map(({ key }) =>
    p.line(
      'series',
      key,
      steps.map((s) => s[key]),
      labels[key],
    ),
  );
  // Labels at the left edge, pushed apart when thresholds are close (compactAt, warnAt, targetAt often are).
  let labelY = Number.NEGATIVE_INFINITY;
  const thresholds = [
    { label: 'budget', tokens: result.budget, color: '#d93025' },
    { label: 'compactAt', tokens: result.thresholds.compact, color: '#f29900' },
    { label: 'warnAt', tokens: result.thresholds.warn, color: '#c5a000' },
    { label: 'targetAt', tokens: result.thresholds.target, color: '#188038' },
  ].map((t) => {
    const lineY = p.y(t.tokens);
    labelY = Math.max(lineY - 4, labelY + 13);
    return (
      `<line x1="${p.left}" x2="${p.right}" y1="${lineY.toFixed(1)}" y2="${lineY.toFixed(1)}" stroke="${t.color}" stroke-dasharray="6 4"/>` +
      `<text x="${p.left + 6}" y="${labelY.toFixed(1)}" fill="${t.color}" font-size="11" paint-order="stroke" stroke="#fff" stroke-width="3">${t.label} ${fmt(t.tokens)}</text>`
    );
  });
  const markers = steps.flatMap((s) =>
    s.events.flatMap((event) => {
      const text = describeEvent(event);
      if (!text) return [];
      const cx = p.x(s.step);
      const cy = p.y(s.baton);
      const title = `<title>step ${s.step}: ${escapeHtml(text)}</title>`;
      return event.type === 'probe-decided'
        ? [
            `<rect class="marker probe" x="${(cx - 3).toFixed(1)}" y="${(cy - 3).toFixed(1)}" width="6" height="6" fill="#fbbc04">${title}</rect>`,
          ]
        : [
            `<circle class="marker" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="4" fill="#1a73e8" stroke="#fff">${title}</circle>`,
          ];
    }),
  );
  return p.svg('context tokens per step', [...thresholds, ...lines, ...markers]);
}

/** A self-contained HTML report (inline SVG and CSS, nothing fetched) of one replay. */
export function renderReport(
  result: ReplayResult,
  meta: { file: string; format: string; settings: string },
): string {
  const labels = Object.fromEntries(result.policies.map((p) => [p.key, p.name])) as Record<PolicyKey, string>;
  const legend = SERIES.slice()
    .reverse()
    .map((s) => `<span class="key"><i style="background:${s.color}"></i>${escapeHtml(labels[s.key])}</span>`)
    .join(' ');
  const summary = result.policies
    .map(
      (p) =>
        `<tr><td>${escapeHtml(p.name)}</td><td>${p.compactions}</td><td>${fmt(p.peak)}</td><td>${p.overBudget}</td><td>${p.openingLost}</td><td>${retentionShare(p.retention.inPrompt, p.retention.needed)}</td><td>${retentionShare(p.retention.recallable, p.retention.needed)}</td><td>${fmt(p.billed)}</td></tr>`,
    )
    .join('\n');
  const eventRows = result.steps
    .flatMap((s) =>
      s.events.flatMap((event) => {
        const text = describeEvent(event);
        return text
          ? [`<tr><td>${s.step}</td><td>${escapeHtml(event.type)}</td><td>${escapeHtml(text)}</td></tr>`]
          : [];
      }),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Baton replay: ${escapeHtml(meta.file)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#202124;max-width:1000px}
h1{font-size:20px;margin:0 0 4px} .meta{color:#5f6368;margin-bottom:16px}
table{border-collapse:collapse;margin:12px 0 24px;width:100%} th,td{border-bottom:1px solid #e0e0e0;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
.events td,.events th{text-align:left} .events td:first-child,.events th:first-child{text-align:right;width:4em}
.note{color:#5f6368;white-space:pre-line}
.key{margin-right:14px;white-space:nowrap} .key i{display:inline-block;width:14px;height:3px;margin-right:5px;vertical-align:middle}
</style></head><body>
<h1>Baton replay of ${escapeHtml(meta.file)}</h1>
<div class="meta">${escapeHtml(meta.format)} · ${result.steps.length} model calls · ${escapeHtml(meta.settings)} · input budget ${fmt(result.budget)} tokens · ${result.archived} entries archived${result.probes ? ` · ${result.probes} probes` : ''}</div>
<div>${legend}</div>
${tokenChart(result, labels)}
<h2>Summary</h2>
<table class="summary"><tr><th>policy</th><th>compactions</th><th>peak tokens</th><th>calls over budget</th><th>calls without the opening request</th><th>references in the prompt</th><th>in the prompt or recallable</th><th>input tokens billed</th></tr>
${summary}
</table>
<p class="note">${escapeHtml(retentionNote(result.policies[0]?.retention.needed ?? 0, ['references in the prompt', 'in the prompt or recallable']))}</p>
<h2>Cost</h2>
<p class="note">${escapeHtml(costNote(result))}</p>
<div>${legend}</div>
${costChart(result, labels)}
${costTable(result)}
<h2>Events</h2>
<table class="events"><tr><th>step</th><th>event</th><th>what happened</th></tr>
${eventRows || '<tr><td colspan="3">no compaction was needed</td></tr>'}
</table>
</body></html>
`;
}

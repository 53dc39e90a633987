import type { BatonEvent } from '@baton/core';
import type { ReplayResult, StepRecord } from './replay.ts';

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const SERIES: Array<{
  key: keyof Pick<StepRecord, 'baton' | 'none' | 'interval' | 'deleteOldest'>;
  color: string;
  width: number;
}> = [
  { key: 'none', color: '#9aa0a6', width: 1.5 },
  { key: 'interval', color: '#8e44ad', width: 1.5 },
  { key: 'deleteOldest', color: '#e67e22', width: 1.5 },
  { key: 'baton', color: '#1a73e8', width: 2.5 },
];

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

function chart(result: ReplayResult, labels: Record<string, string>): string {
  const W = 960;
  const H = 380;
  const pad = { left: 70, right: 20, top: 20, bottom: 40 };
  const steps = result.steps;
  const max =
    Math.max(result.budget, ...steps.flatMap((s) => [s.baton, s.none, s.interval, s.deleteOldest])) * 1.05;
  const x = (step: number) =>
    pad.left + ((step - 1) / Math.max(1, steps.length - 1)) * (W - pad.left - pad.right);
  const y = (tokens: number) => H - pad.bottom - (tokens / max) * (H - pad.top - pad.bottom);
  const lines = SERIES.map(
    ({ key, color, width }) =>
      `<polyline class="series ${key}" fill="none" stroke="${color}" stroke-width="${width}" points="${steps
        .map((s) => `${x(s.step).toFixed(1)},${y(s[key]).toFixed(1)}`)
        .join(' ')}"><title>${escapeHtml(labels[key] as string)}</title></polyline>`,
  );
  // Labels at the left edge, pushed apart when thresholds are close (compactAt, warnAt, targetAt often are).
  let labelY = Number.NEGATIVE_INFINITY;
  const thresholds = [
    { label: 'budget', tokens: result.budget, color: '#d93025' },
    { label: 'compactAt', tokens: result.thresholds.compact, color: '#f29900' },
    { label: 'warnAt', tokens: result.thresholds.warn, color: '#c5a000' },
    { label: 'targetAt', tokens: result.thresholds.target, color: '#188038' },
  ].map((t) => {
    const lineY = y(t.tokens);
    labelY = Math.max(lineY - 4, labelY + 13);
    return (
      `<line x1="${pad.left}" x2="${W - pad.right}" y1="${lineY.toFixed(1)}" y2="${lineY.toFixed(1)}" stroke="${t.color}" stroke-dasharray="6 4"/>` +
      `<text x="${pad.left + 6}" y="${labelY.toFixed(1)}" fill="${t.color}" font-size="11" paint-order="stroke" stroke="#fff" stroke-width="3">${t.label} ${fmt(t.tokens)}</text>`
    );
  });
  const markers = steps.flatMap((s) =>
    s.events.flatMap((event) => {
      const text = describeEvent(event);
      if (!text) return [];
      const shape = event.type === 'probe-decided' ? 'rect' : 'circle';
      const cx = x(s.step).toFixed(1);
      const cy = y(s.baton).toFixed(1);
      const title = `<title>step ${s.step}: ${escapeHtml(text)}</title>`;
      return shape === 'rect'
        ? [
            `<rect class="marker probe" x="${Number(cx) - 3}" y="${Number(cy) - 3}" width="6" height="6" fill="#fbbc04">${title}</rect>`,
          ]
        : [
            `<circle class="marker" cx="${cx}" cy="${cy}" r="4" fill="#1a73e8" stroke="#fff">${title}</circle>`,
          ];
    }),
  );
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const tokens = f * max;
    return `<text x="${pad.left - 6}" y="${(y(tokens) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#5f6368">${fmt(tokens)}</text>`;
  });
  const xTicks = [1, Math.ceil(steps.length / 2), steps.length].map(
    (step) =>
      `<text x="${x(step).toFixed(1)}" y="${H - pad.bottom + 16}" text-anchor="middle" font-size="11" fill="#5f6368">${step}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="context tokens per step">
<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>
<line x1="${pad.left}" y1="${H - pad.bottom}" x2="${W - pad.right}" y2="${H - pad.bottom}" stroke="#5f6368"/>
<line x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${H - pad.bottom}" stroke="#5f6368"/>
${yTicks.join('\n')}
${xTicks.join('\n')}
<text x="${(W + pad.left) / 2}" y="${H - 6}" text-anchor="middle" font-size="12" fill="#3c4043">model call (step)</text>
${thresholds.join('\n')}
${lines.join('\n')}
${markers.join('\n')}
</svg>`;
}

/** A self-contained HTML report (inline SVG and CSS, nothing fetched) of one replay. */
export function renderReport(
  result: ReplayResult,
  meta: { file: string; format: string; settings: string },
): string {
  const labels: Record<string, string> = {
    baton: 'Baton',
    none: 'no compaction',
    interval: result.policies[2]?.name ?? 'fixed interval',
    deleteOldest: 'delete oldest',
  };
  const legend = SERIES.slice()
    .reverse()
    .map(
      (s) =>
        `<span class="key"><i style="background:${s.color}"></i>${escapeHtml(labels[s.key] as string)}</span>`,
    )
    .join(' ');
  const summary = result.policies
    .map(
      (p) =>
        `<tr><td>${escapeHtml(p.name)}</td><td>${p.compactions}</td><td>${fmt(p.peak)}</td><td>${p.overBudget}</td><td>${p.openingLost}</td><td>${fmt(p.billed)}</td></tr>`,
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
.key{margin-right:14px;white-space:nowrap} .key i{display:inline-block;width:14px;height:3px;margin-right:5px;vertical-align:middle}
</style></head><body>
<h1>Baton replay of ${escapeHtml(meta.file)}</h1>
<div class="meta">${escapeHtml(meta.format)} · ${result.steps.length} model calls · ${escapeHtml(meta.settings)} · input budget ${fmt(result.budget)} tokens · ${result.archived} entries archived${result.probes ? ` · ${result.probes} probes` : ''}</div>
<div>${legend}</div>
${chart(result, labels)}
<h2>Summary</h2>
<table class="summary"><tr><th>policy</th><th>compactions</th><th>peak tokens</th><th>calls over budget</th><th>calls without the opening request</th><th>input tokens billed</th></tr>
${summary}
</table>
<h2>Events</h2>
<table class="events"><tr><th>step</th><th>event</th><th>what happened</th></tr>
${eventRows || '<tr><td colspan="3">no compaction was needed</td></tr>'}
</table>
</body></html>
`;
}

import type { BatonEvent } from '@baton/core';
import type { PolicyKey } from './billing.ts';
import { escapeHtml, fmt, fmtShort, plot, SERIES, spreadLabels } from './chart.ts';
import { costChart, costNote, costTable, usd } from './cost-report.ts';
import type { ReplayResult, StepRecord } from './replay.ts';
import { retentionNote, retentionShare } from './retention.ts';

/** One line per event worth a marker: what happened, in counts (events never carry content). */
export function describeEvent(event: BatonEvent): string | undefined {
  switch (event.type) {
    case 'stage-completed':
      return `${event.stage}: ${fmt(event.tokensBefore)} → ${fmt(event.tokensAfter)} tokens, ${stageCounts(event)}`;
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

/**
 * What a stage took out, said apart: messages of the conversation, and Baton's own summaries and
 * digests (a summary over digests takes no message, and read "0 entries").
 */
function stageCounts(event: { entriesAffected: number; syntheticAffected: number }): string {
  const messages = `${event.entriesAffected} ${event.entriesAffected === 1 ? 'message' : 'messages'}`;
  if (event.syntheticAffected === 0) return messages;
  const made = `${event.syntheticAffected} earlier ${event.syntheticAffected === 1 ? 'summary or digest' : 'summaries and digests'}`;
  return event.entriesAffected === 0 ? made : `${messages} and ${made}`;
}

/** How each threshold of `ReplayResult.thresholds` is drawn; one the replay adds later still gets a line. */
const THRESHOLDS: Record<string, { label: string; color: string }> = {
  truncate: { label: 'truncateAt', color: '#b3261e' },
  compact: { label: 'compactAt', color: '#e37400' },
  warn: { label: 'warnAt', color: '#9a7400' },
  target: { label: 'targetAt', color: '#188038' },
};

/** Minimum distance between two threshold labels' baselines, in px (11px text). */
const LABEL_GAP = 14;

/**
 * Context tokens per model call for every policy, with the thresholds and a marker per step
 * with events. The axis fits the policies that keep to the budget: no compaction grows with
 * the whole history (often ten times the budget), and scaled to it the others would share
 * the bottom tenth. It is cut at the top instead, its peak written above the cut.
 */
function tokenChart(result: ReplayResult, labels: Record<PolicyKey, string>): string {
  const steps = result.steps;
  const thresholds = [
    { label: 'budget', tokens: result.budget, color: '#d93025' },
    ...Object.entries(result.thresholds).map(([key, tokens]) => ({
      ...(THRESHOLDS[key] ?? { label: `${key}At`, color: '#5f6368' }),
      tokens,
    })),
  ].sort((a, b) => b.tokens - a.tokens);
  const fitted = Math.max(
    ...thresholds.map((t) => t.tokens),
    ...steps.flatMap((s) => [s.baton, s.interval, s.deleteOldest]),
  );
  const nonePeak = Math.max(0, ...steps.map((s) => s.none));
  // Cut no compaction only when it leaves the others' scale by far: a line a little above is drawn whole.
  const p = plot(steps.length, (nonePeak <= fitted * 1.4 ? Math.max(fitted, nonePeak) : fitted) * 1.1, {
    id: 'tokens',
    right: 130,
    top: 34,
  });
  const lines = SERIES.map(({ key }) =>
    p.line(
      'series',
      key,
      steps.map((s) => s[key]),
      key === 'none' ? `${labels[key]}: peak ${fmt(nonePeak)} tokens` : labels[key],
    ),
  );

  // Labels in the right margin, beside their lines' ends, pushed apart when thresholds are close.
  const placed = spreadLabels(
    thresholds.map((t) => p.y(t.tokens)),
    LABEL_GAP,
    p.top + 4,
    p.bottom,
  );
  const thresholdMarks = thresholds.map((t, i) => {
    const lineY = p.y(t.tokens).toFixed(1);
    const labelY = (placed[i] as number).toFixed(1);
    return (
      `<line class="threshold" x1="${p.left}" x2="${p.right}" y1="${lineY}" y2="${lineY}" stroke="${t.color}" stroke-dasharray="6 4"/>` +
      `<polyline fill="none" stroke="${t.color}" points="${p.right},${lineY} ${p.right + 8},${labelY}"/>` +
      `<text class="threshold-label" x="${p.right + 11}" y="${(Number(labelY) + 4).toFixed(1)}" fill="${t.color}" font-size="11">${t.label} ${fmt(t.tokens)}</text>`
    );
  });

  const peak: string[] = [];
  const exit = steps.findIndex((s) => s.none > p.max);
  if (exit >= 0) {
    // Where the line crosses the top edge, between the last step under it and the first above.
    const before = steps[exit - 1];
    const after = steps[exit] as StepRecord;
    const cx = before
      ? p.x(before.step) +
        ((p.max - before.none) / (after.none - before.none)) * (p.x(after.step) - p.x(before.step))
      : p.x(after.step);
    const peakStep = steps.find((s) => s.none === nonePeak) as StepRecord;
    const leftward = cx > (p.left + p.right) / 2;
    peak.push(
      `<path class="peak-arrow" d="M${(cx - 5).toFixed(1)},${p.top + 1} L${cx.toFixed(1)},${p.top - 7} L${(cx + 5).toFixed(1)},${p.top + 1} Z" fill="${SERIES.find((s) => s.key === 'none')?.color}"/>`,
      `<text class="peak-label" x="${(leftward ? cx - 10 : cx + 10).toFixed(1)}" y="${p.top - 8}" text-anchor="${leftward ? 'end' : 'start'}" font-size="12" fill="#5f6368">${escapeHtml(labels.none)}: peak ${fmtShort(nonePeak)} at step ${peakStep.step}, above the scale<title>${fmt(nonePeak)} tokens</title></text>`,
    );
  }

  // One marker per step for its ladder events and one for its probes, however many there were.
  const markers = steps.flatMap((s) => {
    const described = s.events.flatMap((event) => {
      const text = describeEvent(event);
      return text ? [{ probe: event.type === 'probe-decided', text }] : [];
    });
    const cx = p.x(s.step);
    const cy = p.y(s.baton);
    const title = (probe: boolean) =>
      `<title>step ${s.step}: ${escapeHtml(
        described
          .filter((d) => d.probe === probe)
          .map((d) => d.text)
          .join('\n'),
      )}</title>`;
    return [
      ...(described.some((d) => !d.probe)
        ? [
            `<circle class="marker" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="4" fill="#1a73e8" stroke="#fff">${title(false)}</circle>`,
          ]
        : []),
      ...(described.some((d) => d.probe)
        ? [
            `<rect class="marker probe" x="${(cx - 3).toFixed(1)}" y="${(cy - 3).toFixed(1)}" width="6" height="6" fill="#fbbc04">${title(true)}</rect>`,
          ]
        : []),
    ];
  });
  return p.svg('context tokens per step', [
    `<text x="${p.left - 6}" y="${p.top - 16}" text-anchor="end" font-size="11" fill="#5f6368">tokens</text>`,
    ...thresholdMarks,
    p.clipped(lines.join('\n')),
    ...peak,
    ...markers,
  ]);
}

/** An event in a word or two, for the line that sums up a step. */
function eventName(event: BatonEvent): string {
  switch (event.type) {
    case 'stage-completed':
      return event.stage;
    case 'probe-decided':
      return `probe ${event.decision}`;
    case 'budget-exceeded':
      return 'unfit';
    case 'transcript-repaired':
      return 'transcript repaired';
    default:
      return event.type;
  }
}

/**
 * Baton's events, one row per step: the kinds of event, what happened in a line (the stages
 * in order) with each event's own line when there were several, and the context before and
 * after.
 */
function eventTable(result: ReplayResult): string {
  const rows = result.steps.flatMap((s) => {
    const shown = s.events.flatMap((event) => {
      const text = describeEvent(event);
      return text ? [{ event, text }] : [];
    });
    if (shown.length === 0) return [];
    const sized = shown.flatMap(({ event }) =>
      event.type === 'stage-completed' || event.type === 'self-compacted' ? [event] : [],
    );
    const first = sized[0];
    const last = sized.at(-1);
    const tokens = first && last ? `${fmt(first.tokensBefore)} → ${fmt(last.tokensAfter)}` : fmt(s.baton);
    const what =
      shown.length === 1
        ? escapeHtml(shown[0]?.text ?? '')
        : `${escapeHtml(shown.map(({ event }) => eventName(event)).join(' → '))}<ul>${shown
            .map(({ text }) => `<li>${escapeHtml(text)}</li>`)
            .join('')}</ul>`;
    const kinds = [...new Set(shown.map(({ event }) => event.type))].join(', ');
    return [
      `<tr class="step-events"><td>${s.step}</td><td>${kinds}</td><td>${what}</td><td>${tokens}</td></tr>`,
    ];
  });
  return `<table class="events"><tr><th>step</th><th>event</th><th>what happened</th><th>Baton's context</th></tr>
${rows.join('\n') || '<tr><td colspan="4">no compaction was needed</td></tr>'}
</table>`;
}

/**
 * What each policy's calls cost, cached reads at 0.1x, as a share of what no compaction's cost:
 * a bar per policy, the ratio, the token equivalents, and USD when the model has prices.
 */
function costPanel(result: ReplayResult): string {
  const byKey = new Map(result.policies.map((p) => [p.key, p]));
  const baseline = byKey.get('none')?.cacheAdjusted ?? 0;
  const priced = result.pricing !== undefined;
  const ratio = (cost: number) => (baseline > 0 ? cost / baseline : Number.NaN);
  const widest = Math.max(1, ...result.policies.map((p) => ratio(p.cacheAdjusted) || 0));
  const rows = SERIES.slice()
    .reverse()
    .flatMap(({ key, color }) => {
      const policy = byKey.get(key);
      if (!policy) return [];
      const share = ratio(policy.cacheAdjusted);
      const width = Number.isFinite(share) ? (100 * share) / widest : 0;
      return [
        `<tr class="cost-bar ${key}"><td>${escapeHtml(policy.name)}</td><td class="bar"><i style="width:${width.toFixed(1)}%;background:${color}"></i></td><td class="ratio">${Number.isFinite(share) ? `${share.toFixed(2)}×` : '–'}</td><td>${fmt(policy.cacheAdjusted)}</td>${priced ? `<td>${usd(policy.usd ?? 0)}</td>` : ''}</tr>`,
      ];
    });
  return `<table class="cost-panel"><caption>What each policy's calls cost, as a share of no compaction's</caption><tr><th>policy</th><th class="bar">cost of the calls, cached reads 0.1x</th><th>× no compaction</th><th>token equivalents</th>${priced ? `<th>USD (${escapeHtml(result.model ?? '')})</th>` : ''}</tr>
${rows.join('\n')}
</table>`;
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
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Baton replay: ${escapeHtml(meta.file)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#202124;max-width:1000px}
h1{font-size:20px;margin:0 0 4px} .meta{color:#5f6368;margin-bottom:16px}
table{border-collapse:collapse;margin:12px 0 24px;width:100%} th,td{border-bottom:1px solid #e0e0e0;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
.events td,.events th{text-align:left} .events td:first-child,.events th:first-child{text-align:right;width:4em}
.events ul{margin:2px 0 0;padding-left:18px;color:#5f6368;font-size:13px}
.events td:nth-child(4),.events th:nth-child(4){text-align:right;white-space:nowrap}
.events td:nth-child(2){color:#5f6368;width:9em}
.events td,.events th{vertical-align:top}
.cost-panel{width:auto;min-width:640px;margin-top:4px} .cost-panel td.bar,.cost-panel th.bar{width:320px;text-align:left}
.cost-panel td.bar i{display:block;height:14px;min-width:2px;border-radius:2px}
.cost-panel .baton td{font-weight:600} .cost-panel caption{text-align:left;color:#5f6368;padding:0 8px 4px}
.note{color:#5f6368;white-space:pre-line}
.key{margin-right:14px;white-space:nowrap} .key i{display:inline-block;width:14px;height:3px;margin-right:5px;vertical-align:middle}
</style></head><body>
<h1>Baton replay of ${escapeHtml(meta.file)}</h1>
<div class="meta">${escapeHtml(meta.format)} · ${result.steps.length} model calls · ${escapeHtml(meta.settings)} · input budget ${fmt(result.budget)} tokens · ${result.archived} entries archived${result.probes ? ` · ${result.probes} probes` : ''}</div>
<div>${legend}</div>
${tokenChart(result, labels)}
${costPanel(result)}
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
${eventTable(result)}
</body></html>
`;
}

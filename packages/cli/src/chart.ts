import type { PolicyKey } from './billing.ts';

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Tokens in a few characters for a label: `184k`, `12.8k`, `950`. */
export const fmtShort = (n: number) =>
  n >= 99_950 ? `${fmt(n / 1_000)}k` : n >= 1_000 ? `${(n / 1_000).toFixed(1).replace(/\.0$/, '')}k` : fmt(n);

/** An axis label that fits the 70 px left margin: `9,500,000`, then `12M`, `200M`. */
const axisLabel = (n: number) => (n >= 10_000_000 ? `${Number((n / 1_000_000).toFixed(1))}M` : fmt(n));

/** Each policy's line, the same in every chart; Baton's last, drawn on top. */
export const SERIES: ReadonlyArray<{ key: PolicyKey; color: string; width: number }> = [
  { key: 'none', color: '#9aa0a6', width: 1.5 },
  { key: 'interval', color: '#8e44ad', width: 1.5 },
  { key: 'deleteOldest', color: '#e67e22', width: 1.5 },
  { key: 'baton', color: '#1a73e8', width: 2.5 },
];

const W = 960;
const H = 380;

/**
 * A round tick step for about `count` ticks from 0 to `max`: 1, 2, 2.5 or 5 times a power of
 * ten, so the axis reads 0, 5,000, 10,000, 15,000 rather than quarters of the largest value.
 *
 * @example
 * niceStep(14_336); // 5_000
 */
export function niceStep(max: number, count = 4): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return (([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) as number) * power;
}

/**
 * Label positions along one axis, none closer than `gap` to the next, each as near its wanted
 * position as a top-down then bottom-up pass allows, all within `[min, max]` when
 * `(n - 1) * gap` fits there (a chart's few threshold labels always do). Returned in the
 * order given.
 *
 * @example
 * spreadLabels([100, 104, 300], 14, 0, 400); // [100, 114, 300]
 */
export function spreadLabels(wanted: readonly number[], gap: number, min: number, max: number): number[] {
  const order = wanted.map((_, i) => i).sort((a, b) => (wanted[a] as number) - (wanted[b] as number));
  const placed = wanted.slice();
  let previous = Number.NEGATIVE_INFINITY;
  for (const i of order) {
    placed[i] = Math.max(wanted[i] as number, previous + gap, min);
    previous = placed[i] as number;
  }
  let next = Number.POSITIVE_INFINITY;
  for (const i of order.slice().reverse()) {
    placed[i] = Math.min(placed[i] as number, next - gap, max);
    next = placed[i] as number;
  }
  return placed;
}

/** How a plot is laid out: its tick labels and the room around the plot area, in px. */
export interface PlotOptions {
  /** Tick labels; default `fmt` (`12,800`). */
  tick?: (value: number) => string;
  /** Makes the plot's clip path id unique in the page; needed when `clipped` is used. */
  id?: string;
  /** Room right of the plot area, for labels; default 20. */
  right?: number;
  /** Room above the plot area, for labels; default 20. */
  top?: number;
}

/** A chart of values per model call: its scales, and the SVG around what is drawn on them. */
export interface Plot {
  x(step: number): number;
  y(value: number): number;
  left: number;
  right: number;
  /** The plot area's top and bottom edges, in px. */
  top: number;
  bottom: number;
  /** The largest value on the axis: the `max` asked for, rounded up to a tick. */
  max: number;
  /** One policy's line through `values` (one per step, from step 1), in the policy's colour. */
  line(className: string, key: PolicyKey, values: readonly number[], title: string): string;
  /** `content` cut at the edges of the plot area: for a line that leaves the scale. */
  clipped(content: string): string;
  /** The SVG: axes, ticks and labels, then `body`. */
  svg(label: string, body: readonly string[]): string;
}

/**
 * Scales for `steps` model calls and values from 0 to `max` (rounded up to a round tick).
 *
 * @example
 * const p = plot(48, 14_336, { id: 'tokens', right: 130 });
 * p.svg('context tokens per step', [p.line('series', 'baton', values, 'Baton')]);
 */
export function plot(steps: number, max: number, options: PlotOptions = {}): Plot {
  const { tick = axisLabel, id = 'plot', right: padRight = 20, top: padTop = 20 } = options;
  const pad = { left: 70, right: padRight, top: padTop, bottom: 40 };
  const step = niceStep(max);
  const top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  const x = (s: number) => pad.left + ((s - 1) / Math.max(1, steps - 1)) * (W - pad.left - pad.right);
  const y = (value: number) => H - pad.bottom - (value / top) * (H - pad.top - pad.bottom);
  const clipId = `${id}-area`;
  let clips = false;
  return {
    x,
    y,
    left: pad.left,
    right: W - pad.right,
    top: pad.top,
    bottom: H - pad.bottom,
    max: top,
    line(className, key, values, title) {
      const { color, width } = SERIES.find((s) => s.key === key) as (typeof SERIES)[number];
      const points = values.map((v, i) => `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      return `<polyline class="${className} ${key}" fill="none" stroke="${color}" stroke-width="${width}" points="${points}"><title>${escapeHtml(title)}</title></polyline>`;
    },
    clipped(content) {
      clips = true;
      return `<g clip-path="url(#${clipId})">${content}</g>`;
    },
    svg(label, body) {
      const yTicks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step).map(
        (value) =>
          `<line x1="${pad.left}" x2="${W - pad.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#f1f3f4"/>` +
          `<text class="tick" x="${pad.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#5f6368">${tick(value)}</text>`,
      );
      const xTicks = [...new Set([1, Math.ceil(steps / 2), steps])].map(
        (s) =>
          `<text class="tick" x="${x(s).toFixed(1)}" y="${H - pad.bottom + 16}" text-anchor="middle" font-size="11" fill="#5f6368">${s}</text>`,
      );
      // The clip box reaches a line's width past the area, so a line along an edge is not halved.
      const defs = clips
        ? `<defs><clipPath id="${clipId}"><rect x="${pad.left - 3}" y="${pad.top}" width="${W - pad.left - pad.right + 6}" height="${H - pad.top - pad.bottom + 3}"/></clipPath></defs>\n`
        : '';
      return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(label)}">
${defs}<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>
${yTicks.join('\n')}
<line class="axis x" x1="${pad.left}" y1="${H - pad.bottom}" x2="${W - pad.right}" y2="${H - pad.bottom}" stroke="#5f6368"/>
<line class="axis y" x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${H - pad.bottom}" stroke="#5f6368"/>
${xTicks.join('\n')}
<text x="${(W + pad.left - pad.right) / 2}" y="${H - 6}" text-anchor="middle" font-size="12" fill="#3c4043">model call (step)</text>
${body.join('\n')}
</svg>`;
    },
  };
}

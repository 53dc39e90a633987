import type { PolicyKey } from './billing.ts';

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Each policy's line, the same in every chart; Baton's last, drawn on top. */
export const SERIES: ReadonlyArray<{ key: PolicyKey; color: string; width: number }> = [
  { key: 'none', color: '#9aa0a6', width: 1.5 },
  { key: 'interval', color: '#8e44ad', width: 1.5 },
  { key: 'deleteOldest', color: '#e67e22', width: 1.5 },
  { key: 'baton', color: '#1a73e8', width: 2.5 },
];

const W = 960;
const H = 380;
const pad = { left: 70, right: 20, top: 20, bottom: 40 };

/** A chart of values per model call: its scales, and the SVG around what is drawn on them. */
export interface Plot {
  x(step: number): number;
  y(value: number): number;
  left: number;
  right: number;
  /** One policy's line through `values` (one per step, from step 1), in the policy's colour. */
  line(className: string, key: PolicyKey, values: readonly number[], title: string): string;
  /** The SVG: axes, ticks and labels, then `body`. */
  svg(label: string, body: readonly string[]): string;
}

/** Scales for `steps` model calls and values from 0 to `max`, with ticks labelled by `tick`. */
export function plot(steps: number, max: number, tick: (value: number) => string = fmt): Plot {
  const x = (step: number) => pad.left + ((step - 1) / Math.max(1, steps - 1)) * (W - pad.left - pad.right);
  const y = (value: number) => H - pad.bottom - (value / (max || 1)) * (H - pad.top - pad.bottom);
  return {
    x,
    y,
    left: pad.left,
    right: W - pad.right,
    line(className, key, values, title) {
      const { color, width } = SERIES.find((s) => s.key === key) as (typeof SERIES)[number];
      const points = values.map((v, i) => `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      return `<polyline class="${className} ${key}" fill="none" stroke="${color}" stroke-width="${width}" points="${points}"><title>${escapeHtml(title)}</title></polyline>`;
    },
    svg(label, body) {
      const yTicks = [0, 0.25, 0.5, 0.75, 1].map(
        (f) =>
          `<text x="${pad.left - 6}" y="${(y(f * max) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#5f6368">${tick(f * max)}</text>`,
      );
      const xTicks = [1, Math.ceil(steps / 2), steps].map(
        (step) =>
          `<text x="${x(step).toFixed(1)}" y="${H - pad.bottom + 16}" text-anchor="middle" font-size="11" fill="#5f6368">${step}</text>`,
      );
      return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(label)}">
<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>
<line x1="${pad.left}" y1="${H - pad.bottom}" x2="${W - pad.right}" y2="${H - pad.bottom}" stroke="#5f6368"/>
<line x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${H - pad.bottom}" stroke="#5f6368"/>
${yTicks.join('\n')}
${xTicks.join('\n')}
<text x="${(W + pad.left) / 2}" y="${H - 6}" text-anchor="middle" font-size="12" fill="#3c4043">model call (step)</text>
${body.join('\n')}
</svg>`;
    },
  };
}

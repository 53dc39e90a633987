import { describe, expect, it } from 'vitest';
import { fmtShort, niceStep, plot, spreadLabels } from './chart.ts';

describe('spreadLabels', () => {
  it('keeps labels that are apart where they are', () => {
    expect(spreadLabels([50, 200, 120], 14, 0, 300)).toEqual([50, 200, 120]);
  });

  it('pushes close labels apart by the gap, in the order given', () => {
    const placed = spreadLabels([104, 100, 101, 300], 14, 0, 400);
    expect(placed).toEqual([128, 100, 114, 300]);
  });

  it('pushes labels at the bottom edge back up instead of past it', () => {
    const placed = spreadLabels([395, 398, 400], 14, 0, 400);
    expect(placed).toEqual([372, 386, 400]);
  });

  it('keeps labels below the top edge', () => {
    expect(spreadLabels([-20, 0], 14, 10, 400)).toEqual([10, 24]);
  });
});

describe('the axis', () => {
  it('ends at a round tick above the largest value', () => {
    expect(niceStep(14_336)).toBe(5_000);
    expect(niceStep(66_000)).toBe(20_000);
    expect(niceStep(9)).toBe(2.5);
    expect(plot(10, 14_336).max).toBe(15_000);
    expect(plot(10, 15_000).max).toBe(15_000);
  });

  it('writes peaks in a few characters', () => {
    expect(fmtShort(183_729)).toBe('184k');
    expect(fmtShort(12_800)).toBe('12.8k');
    expect(fmtShort(6_000)).toBe('6k');
    expect(fmtShort(950)).toBe('950');
  });

  it('clips only what asks for it, with an id of its own', () => {
    const p = plot(10, 100, { id: 'tokens' });
    expect(p.svg('x', ['<line/>'])).not.toContain('clipPath');
    const body = p.clipped('<polyline/>');
    expect(body).toBe('<g clip-path="url(#tokens-area)"><polyline/></g>');
    expect(p.svg('x', [body])).toContain('<clipPath id="tokens-area">');
  });
});

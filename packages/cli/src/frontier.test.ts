import { describe, expect, it } from 'vitest';
import { dominates, paretoFrontier, placeOnFrontier } from './frontier.ts';

const point = (cost: number, kept: number, overBudget = 0) => ({ cost, kept, overBudget });

describe('the cost / retention frontier', () => {
  it('marks only the points no other point beats on both cost and refs kept', () => {
    const points = [
      point(100, 90), // defaults: beaten by the next, cheaper and keeping more
      point(95, 92),
      point(80, 85), // cheapest
      point(120, 97), // keeps most
      point(110, 91), // beaten by 95/92
      point(80, 85), // a tie with the cheapest: neither beats the other
    ];
    expect(paretoFrontier(points).onFrontier).toEqual([false, true, true, true, false, true]);
    expect(dominates(point(95, 92), point(100, 90))).toBe(true);
    expect(dominates(point(80, 85), point(80, 85))).toBe(false);
  });

  it('places the defaults: off the frontier, the frontier points that dominate them; the recommendation keeps at least their refs', () => {
    const points = [point(100, 90), point(95, 92), point(80, 85), point(90, 91), point(120, 97)];
    const placed = placeOnFrontier(points, 0);
    expect(placed.onFrontier[0]).toBe(false);
    expect(placed.dominatingDefaults.sort()).toEqual([1, 3]);
    // 80/85 is cheaper but keeps less than the defaults: not recommended; 90/91 is the cheapest that keeps as much.
    expect(placed.recommended).toBe(3);
  });

  it('recommends the defaults when they are on the frontier and nothing keeps as much for less', () => {
    const placed = placeOnFrontier([point(100, 90), point(80, 85), point(130, 95)], 0);
    expect(placed.onFrontier).toEqual([true, true, true]);
    expect(placed.dominatingDefaults).toEqual([]);
    expect(placed.recommended).toBe(0);
  });

  it('prefers the defaults among equals, and keeps settings that overflow off the frontier', () => {
    expect(placeOnFrontier([point(100, 90), point(100, 90)], 1).recommended).toBe(1);
    // Equal measures, neither the defaults: the one that moves fewer settings.
    expect(placeOnFrontier([point(120, 90), point(100, 95), point(100, 95)], 0, [0, 2, 1]).recommended).toBe(
      2,
    );
    // The cheapest overflows: off the frontier, however cheap, and never recommended.
    const placed = placeOnFrontier([point(100, 90), point(50, 95, 3), point(110, 93)], 0);
    expect(placed.eligible).toEqual([true, false, true]);
    expect(placed.onFrontier).toEqual([true, false, true]);
    expect(placed.recommended).toBe(0);
  });

  it('when the defaults overflow, the eligible points at least as good on both axes beat them', () => {
    const placed = placeOnFrontier([point(100, 90, 2), point(100, 90), point(90, 80)], 0);
    expect(placed.onFrontier).toEqual([false, true, true]);
    expect(placed.dominatingDefaults).toEqual([1]);
    expect(placed.recommended).toBe(1);
  });
});

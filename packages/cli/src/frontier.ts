/**
 * The cost / retention frontier of a sweep, and the setting to recommend on it: pure decisions
 * over measured points, the same points giving the same answer.
 */

/** One measured setting: what its calls cost, what its prompts kept, and calls over the budget. */
export interface FrontierPoint {
  /** Cache-adjusted cost (input-token equivalents, cached reads at 0.1x). */
  cost: number;
  /** References the prompts held (a count: every setting is scored on the same references). */
  kept: number;
  /** Calls over the budget: the provider refuses them. */
  overBudget: number;
}

export interface FrontierPlacement {
  /** Per point: on the frontier. */
  onFrontier: boolean[];
  /**
   * Per point: eligible for the frontier, i.e. no more calls over the budget than the fewest any
   * point had (normally 0). A cheap setting that overflows is no trade-off to offer.
   */
  eligible: boolean[];
  /** Frontier points that dominate `defaults` (empty when the defaults are on the frontier). */
  dominatingDefaults: number[];
  /** The recommended point (see `recommend`). */
  recommended: number;
}

/** `a` dominates `b`: no dearer, keeps no less, and strictly better on one of the two. */
export const dominates = (a: FrontierPoint, b: FrontierPoint): boolean =>
  a.cost <= b.cost && a.kept >= b.kept && (a.cost < b.cost || a.kept > b.kept);

/**
 * Which points no other eligible point dominates. Points measured equal are both on it: neither
 * is better.
 */
export function paretoFrontier(
  points: readonly FrontierPoint[],
): Pick<FrontierPlacement, 'onFrontier' | 'eligible'> {
  const fewest = Math.min(...points.map((p) => p.overBudget));
  const eligible = points.map((p) => p.overBudget === fewest);
  const onFrontier = points.map(
    (p, i) => eligible[i] === true && !points.some((q, j) => j !== i && eligible[j] && dominates(q, p)),
  );
  return { onFrontier, eligible };
}

/**
 * The recommendation: the cheapest frontier point that keeps at least as many references as the
 * defaults (ties: the one keeping more, then the defaults themselves, then the fewest settings
 * moved from the defaults, `moved[i]`, then grid order). It is
 * never worse than the defaults on either axis, so pasting it cannot trade away what the agent
 * uses for a saving the user did not ask for; when the defaults are on the frontier it is the
 * defaults or a point that keeps more for no more cost. When the defaults overflowed and no
 * eligible point keeps as much, the frontier point that keeps the most.
 */
export function placeOnFrontier(
  points: readonly FrontierPoint[],
  defaults: number,
  moved: readonly number[] = [],
): FrontierPlacement {
  const { onFrontier, eligible } = paretoFrontier(points);
  const base = points[defaults];
  if (base === undefined) throw new RangeError(`defaults: no point ${defaults} among ${points.length}`);
  const frontier = points.map((_, i) => i).filter((i) => onFrontier[i]);
  const dominatingDefaults = onFrontier[defaults]
    ? []
    : frontier.filter((i) => {
        const q = points[i] as FrontierPoint;
        // Defaults over the budget: every eligible point at least as good on both axes beats them.
        return dominates(q, base) || (!eligible[defaults] && q.cost <= base.cost && q.kept >= base.kept);
      });
  const atLeast = frontier.filter((i) => (points[i] as FrontierPoint).kept >= base.kept);
  const order = (a: number, b: number) => {
    const p = points[a] as FrontierPoint;
    const q = points[b] as FrontierPoint;
    return (
      p.cost - q.cost ||
      q.kept - p.kept ||
      Number(b === defaults) - Number(a === defaults) ||
      // Two settings that measure the same: the one closer to the defaults is the smaller change.
      (moved[a] ?? 0) - (moved[b] ?? 0) ||
      a - b
    );
  };
  const recommended =
    atLeast.length > 0
      ? (atLeast.sort(order)[0] as number)
      : (frontier.sort(
          (a, b) => (points[b] as FrontierPoint).kept - (points[a] as FrontierPoint).kept || order(a, b),
        )[0] as number);
  return { onFrontier, eligible, dominatingDefaults, recommended };
}

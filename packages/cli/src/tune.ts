import type { Entry } from '@baton/core';
import { type FrontierPoint, placeOnFrontier } from './frontier.ts';
import { type PolicySummary, replay } from './replay.ts';
import {
  resolvedSettings,
  SETTING_NAMES,
  type SettingName,
  type Settings,
  settingsProblem,
} from './settings.ts';

/** Values to try per setting; the sweep runs every combination core accepts. */
export type Grid = Partial<Record<SettingName, readonly number[]>>;

/**
 * The default sweep: when compaction starts, how far it goes, and the least gain worth a cache
 * write, on either side of core's defaults (0.8, 0.3, 0.3). 27 combinations, all accepted.
 */
export const DEFAULT_GRID: Grid = {
  compactAt: [0.7, 0.8, 0.9],
  targetAt: [0.2, 0.3, 0.5],
  minCompactionGain: [0.2, 0.3, 0.4],
};

/** One conversation to replay, read once and replayed under every setting. */
export interface TuneSession {
  name: string;
  entries: readonly Entry[];
}

export interface TuneOptions {
  contextWindow?: number;
  model?: string;
  pinned?: string[];
  /** The fixed-interval baseline's period (default 10). */
  interval?: number;
  /** Default `DEFAULT_GRID`. */
  grid?: Grid;
}

/** What a policy did over every session, summed. */
export interface Measured {
  /** Model calls billed (probes included). */
  calls: number;
  /** Cache-adjusted cost: input-token equivalents, cached reads at 0.1x. */
  cost: number;
  /** USD under the model's provider's rules, when `--model` has prices. */
  usd?: number;
  /** References the agent used that an earlier message showed first. */
  needed: number;
  inPrompt: number;
  /** The same for references first seen more than 10 messages before the call. */
  farNeeded: number;
  farInPrompt: number;
  recallable: number;
  compactions: number;
  overBudget: number;
  unfit: number;
}

export interface TuneRow extends Measured {
  /** The swept settings' values (core's defaults for the others). */
  settings: Settings;
  defaults: boolean;
  onFrontier: boolean;
  /** No more calls over the budget than the fewest of any row (see `paretoFrontier`). */
  eligible: boolean;
  recommended: boolean;
}

export interface TuneResult {
  sessions: number;
  /** Model calls the agent made over all sessions (each replay's steps). */
  steps: number;
  /** Rows in the order they ran; the defaults' first. */
  rows: TuneRow[];
  /** Combinations core refuses, and why. */
  skipped: Array<{ settings: Settings; reason: string }>;
  /** Index in `rows` of the defaults, and of the recommendation. */
  defaults: number;
  recommended: number;
  /** Indexes in `rows` of the frontier rows that dominate the defaults (empty: on the frontier). */
  dominatingDefaults: number[];
  /** The baselines, which no setting changes: no compaction, every N steps, delete oldest. */
  baselines: Array<Measured & { name: string }>;
}

const sameSettings = (a: Settings, b: Settings) => {
  const x = resolvedSettings(a);
  const y = resolvedSettings(b);
  return SETTING_NAMES.every((name) => x[name] === y[name]);
};

/**
 * Every combination of the grid's values core accepts, the defaults first (added when the grid
 * lacks them: they are what every row is placed against), duplicates of the defaults dropped.
 */
export function gridSettings(grid: Grid): { settings: Settings[]; skipped: TuneResult['skipped'] } {
  const axes = (Object.entries(grid) as Array<[SettingName, readonly number[]]>).filter(
    ([, v]) => v.length > 0,
  );
  let combinations: Settings[] = [{}];
  for (const [name, values] of axes)
    combinations = combinations.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  const resolvedDefaults = resolvedSettings({});
  const defaults = Object.fromEntries(axes.map(([name]) => [name, resolvedDefaults[name]])) as Settings;
  const settings: Settings[] = [defaults];
  const skipped: TuneResult['skipped'] = [];
  for (const combination of combinations) {
    const reason = settingsProblem(combination, (name) => name);
    if (reason !== undefined) skipped.push({ settings: combination, reason });
    else if (!sameSettings(combination, defaults)) settings.push(combination);
  }
  return { settings, skipped };
}

const FAR: ReadonlyArray<'11 to 50' | 'over 50'> = ['11 to 50', 'over 50'];

function measure(policies: readonly PolicySummary[]): Measured {
  const sum = (of: (p: PolicySummary) => number) => policies.reduce((total, p) => total + of(p), 0);
  const priced = policies.every((p) => p.usd !== undefined);
  return {
    calls: sum((p) => p.calls),
    cost: sum((p) => p.cacheAdjusted),
    ...(priced ? { usd: sum((p) => p.usd as number) } : {}),
    needed: sum((p) => p.retention.needed),
    inPrompt: sum((p) => p.retention.inPrompt),
    farNeeded: sum((p) => FAR.reduce((n, d) => n + p.retention.byDistance[d].needed, 0)),
    farInPrompt: sum((p) => FAR.reduce((n, d) => n + p.retention.byDistance[d].inPrompt, 0)),
    recallable: sum((p) => p.retention.recallable),
    compactions: sum((p) => p.compactions),
    overBudget: sum((p) => p.overBudget),
    unfit: sum((p) => p.unfit),
  };
}

/**
 * Replays every session under every setting of the grid and places the defaults and the
 * recommendation on the cost / retention frontier. The baselines run once, beside the
 * defaults: no setting changes them. `onSetting` is called after each setting's replays.
 *
 * @example
 * const result = await tune([{ name: 'a.json', entries }], { contextWindow: 32_000 });
 * result.rows[result.recommended].settings; // { compactAt: 0.8, targetAt: 0.3, minCompactionGain: 0.3 }
 */
export async function tune(
  sessions: readonly TuneSession[],
  options: TuneOptions = {},
  onSetting?: (done: number, total: number, settings: Settings) => void,
): Promise<TuneResult> {
  if (sessions.length === 0) throw new RangeError('tune: no sessions to replay');
  const { settings, skipped } = gridSettings(options.grid ?? DEFAULT_GRID);
  const common = {
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.pinned ? { pinned: options.pinned } : {}),
    ...(options.interval ? { interval: options.interval } : {}),
  };
  const measured: Measured[] = [];
  const perBaseline = new Map<string, PolicySummary[]>();
  let steps = 0;
  for (const [index, setting] of settings.entries()) {
    const batons: PolicySummary[] = [];
    for (const session of sessions) {
      const first = index === 0;
      const result = await replay(session.entries, { ...common, settings: setting, baselines: first });
      const [baton, ...baselines] = result.policies;
      batons.push(baton as PolicySummary);
      if (first) {
        steps += result.steps.length;
        for (const p of baselines) perBaseline.set(p.name, [...(perBaseline.get(p.name) ?? []), p]);
      }
    }
    measured.push(measure(batons));
    onSetting?.(index + 1, settings.length, setting);
  }
  const points: FrontierPoint[] = measured.map((m) => ({
    cost: m.cost,
    kept: m.inPrompt,
    overBudget: m.overBudget,
  }));
  const defaults = settings[0] as Settings;
  const moved = settings.map(
    (setting) =>
      (Object.keys(setting) as SettingName[]).filter((name) => setting[name] !== defaults[name]).length,
  );
  const placement = placeOnFrontier(points, 0, moved);
  return {
    sessions: sessions.length,
    steps,
    rows: measured.map((m, i) => ({
      settings: settings[i] as Settings,
      ...m,
      defaults: i === 0,
      onFrontier: placement.onFrontier[i] === true,
      eligible: placement.eligible[i] === true,
      recommended: i === placement.recommended,
    })),
    skipped,
    defaults: 0,
    recommended: placement.recommended,
    dominatingDefaults: placement.dominatingDefaults,
    baselines: [...perBaseline].map(([name, policies]) => ({ name, ...measure(policies) })),
  };
}

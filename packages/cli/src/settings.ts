import { type BatonOptions, createBaton } from '@baton/core';
import { UsageError } from './cli-input.ts';

/**
 * The engine settings a replay or a sweep can move, by command-line flag: core's option of the
 * same meaning (`createBaton`), validated by core itself so the CLI never accepts a value the
 * library would refuse.
 */
export const SETTING_FLAGS = {
  'compact-at': 'compactAt',
  'target-at': 'targetAt',
  'truncate-at': 'truncateAt',
  'warn-at': 'warnAt',
  'min-compaction-gain': 'minCompactionGain',
  'keep-recent': 'keepRecentGroups',
  keep: 'keep',
} as const;

export type SettingFlag = keyof typeof SETTING_FLAGS;
export type SettingName = (typeof SETTING_FLAGS)[SettingFlag];
/** Values for some of the settings; the others keep core's defaults. */
export type Settings = Partial<Record<SettingName, number>>;

export const SETTING_NAMES = Object.values(SETTING_FLAGS) as SettingName[];
const FLAG_OF = Object.fromEntries(
  Object.entries(SETTING_FLAGS).map(([flag, name]) => [name, flag]),
) as Record<SettingName, SettingFlag>;

/** `--compact-at` for `compactAt`. */
export const flagOf = (name: SettingName): string => `--${FLAG_OF[name]}`;

/** A setting by its option name (`compactAt`) or its flag's (`compact-at`), as `--grid` takes it. */
export function settingNamed(raw: string): SettingName | undefined {
  if ((SETTING_NAMES as string[]).includes(raw)) return raw as SettingName;
  return SETTING_FLAGS[raw.replace(/^--/, '') as SettingFlag];
}

/** A window only so core resolves every threshold; the thresholds are shares of it. */
const PROBE_WINDOW = 128_000;

/**
 * Core's verdict on `settings`: undefined when `createBaton` takes them, else its message with
 * each option named as `name` says (the flag on the command line, the option in a grid).
 */
export function settingsProblem(
  settings: Settings,
  name: (setting: SettingName) => string = flagOf,
): string | undefined {
  try {
    createBaton({ contextWindow: PROBE_WINDOW, ...settings } as BatonOptions);
    return undefined;
  } catch (error) {
    if ((error as Error).name !== 'BatonConfigError') throw error;
    // `[baton] [options] targetAt: must be below compactAt (0.8), received 0.9`
    return (error as Error).message
      .replace(/^\[baton\] \[options\] /, '')
      .replace(new RegExp(`\\b(${SETTING_NAMES.join('|')})\\b`, 'g'), (option) =>
        name(option as SettingName),
      );
  }
}

/**
 * The settings given as flags (`--compact-at 0.9`), checked by core: a value that is not a
 * number, or one core refuses, is a `UsageError` naming the flag.
 */
export function parseSettings(values: Record<string, string | undefined>): Settings {
  const settings: Settings = {};
  for (const [flag, name] of Object.entries(SETTING_FLAGS) as Array<[SettingFlag, SettingName]>) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const value = raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isFinite(value))
      throw new UsageError(`--${flag}: expected a number, got ${JSON.stringify(raw)}`);
    settings[name] = value;
  }
  const problem = settingsProblem(settings);
  if (problem !== undefined) throw new UsageError(problem);
  return settings;
}

/** Every setting as core resolves it (a moved compactAt moves the unset thresholds with it). */
export function resolvedSettings(settings: Settings): Record<SettingName, number> {
  const options = createBaton({ contextWindow: PROBE_WINDOW, ...settings } as BatonOptions).options;
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, options[name]])) as Record<
    SettingName,
    number
  >;
}

/** The settings core resolves `settings` to that are not its defaults, in flag order. */
export function nonDefaultSettings(settings: Settings): Settings {
  const defaults = resolvedSettings({});
  const resolved = resolvedSettings(settings);
  const moved: Settings = {};
  // Rounded: a derived threshold (0.375 x compactAt) prints as 0.225, not 0.22499999999999998.
  for (const name of SETTING_NAMES)
    if (resolved[name] !== defaults[name]) moved[name] = Number(resolved[name].toPrecision(6));
  return moved;
}

/** `compactAt 0.9, targetAt 0.3`: for a report line. */
export const describeSettings = (settings: Settings): string =>
  (Object.entries(settings) as Array<[SettingName, number]>)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');

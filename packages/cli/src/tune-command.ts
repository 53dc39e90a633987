import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { parseArgs } from 'node:util';
import { fmt } from './chart.ts';
import {
  modelNote,
  parseWindow,
  plural,
  printable,
  readNotes,
  readTranscript,
  UsageError,
} from './cli-input.ts';
import type { Io } from './io.ts';
import { modelCalls } from './replay.ts';
import {
  describeSettings,
  SETTING_NAMES,
  type SettingName,
  type Settings,
  settingNamed,
} from './settings.ts';
import {
  DEFAULT_GRID,
  type Grid,
  gridSettings,
  type Measured,
  type TuneResult,
  type TuneRow,
  tune,
} from './tune.ts';

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

const gridText = (grid: Grid) =>
  Object.entries(grid)
    .map(([name, values]) => `${name}=${(values as number[]).join(',')}`)
    .join(' ');

/** The rule `tune` recommends by, as the help and the output state it. */
export const RECOMMENDATION_RULE =
  "the cheapest setting on the frontier that keeps at least the defaults' refs in prompt, so never worse than the defaults on either";

export const TUNE_USAGE = `  baton tune <file...> [--window 128k] [--model gpt-4o] [--pinned a,b] [--interval 10] [--json]
                      [--grid ${gridText(DEFAULT_GRID)}]
      replays every file (several: sessions summed) under each setting of the grid (compactAt,
      targetAt, truncateAt, warnAt, minCompactionGain, keepRecentGroups, keep; what core refuses
      is skipped), prints cost and refs kept per setting by cost, marks the frontier (no other
      setting as cheap and keeping as many refs, and better on one) and the defaults, and
      recommends the cheapest frontier setting that keeps at least the defaults' refs in prompt.
      --thread picks the conversation of a file that holds several (one file only).`;

/**
 * `--grid compactAt=0.7,0.9 targetAt=0.3,0.5`: the axes after `--grid` up to the next option
 * or file (`name=` never starts a file name one would sweep), or several in one quoted value.
 */
function gridAndFiles(tokens: readonly Token[]): { grid: Grid | undefined; files: string[] } {
  const axes: string[] = [];
  const files: string[] = [];
  let inGrid = false;
  let command = true;
  for (const token of tokens) {
    if (token.kind === 'option') {
      inGrid = token.name === 'grid';
      if (inGrid) axes.push(...(token.value ?? '').split(/\s+/).filter(Boolean));
    } else if (token.kind === 'positional') {
      if (command) command = false;
      else if (inGrid && /^[\w-]+=/.test(token.value)) axes.push(token.value);
      else {
        inGrid = false;
        files.push(token.value);
      }
    } else inGrid = false;
  }
  if (axes.length === 0) return { grid: undefined, files };
  const grid: Grid = {};
  for (const axis of axes) {
    const [raw, list = ''] = axis.split('=', 2) as [string, string?];
    const name = settingNamed(raw);
    if (name === undefined)
      throw new UsageError(
        `--grid: unknown setting ${JSON.stringify(raw)}; one of ${SETTING_NAMES.join(', ')}`,
      );
    if (grid[name] !== undefined) throw new UsageError(`--grid: ${name} given twice`);
    const values = list.split(',').map((v) => (v.trim() === '' ? Number.NaN : Number(v)));
    if (values.some((v) => !Number.isFinite(v)))
      throw new UsageError(
        `--grid: ${name}: expected numbers separated by commas, got ${JSON.stringify(list)}`,
      );
    grid[name] = [...new Set(values)];
  }
  return { grid, files };
}

/** A value no accepted combination uses is a typo or out of range: refused with core's reason. */
function checkGrid(grid: Grid): void {
  const { settings, skipped } = gridSettings(grid);
  for (const [name, values] of Object.entries(grid) as Array<[SettingName, number[]]>)
    for (const value of values)
      if (!settings.some((s) => s[name] === value)) {
        const reason = skipped.find((s) => s.settings[name] === value)?.reason ?? 'refused';
        throw new UsageError(`--grid: ${name}=${value} fits no combination: ${reason}`);
      }
}

const share = (part: number, whole: number) =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;
const per100 = (m: Measured, steps: number) =>
  steps === 0 ? '0' : ((100 * m.compactions) / steps).toFixed(1);

/** `{ compactAt: 0.9, targetAt: 0.3 }`: the options to paste into createBaton. */
export const asOptions = (settings: Settings): string =>
  `{ ${(Object.entries(settings) as Array<[string, number]>).map(([k, v]) => `${k}: ${v}`).join(', ')} }`;

function columns(rows: string[][], right: (column: number) => boolean): string {
  const widths = (rows[0] as string[]).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (right(c) ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The sweep as text: the table sorted by cost, where the defaults sit, the recommendation. */
export function tuneText(result: TuneResult): string {
  const names = Object.keys(result.rows[0]?.settings ?? {}) as SettingName[];
  const defaults = result.rows[result.defaults] as TuneRow;
  const order = result.rows
    .map((_, i) => i)
    .sort((a, b) => {
      const p = result.rows[a] as TuneRow;
      const q = result.rows[b] as TuneRow;
      return p.cost - q.cost || q.inPrompt - p.inPrompt || a - b;
    });
  const metrics = (m: Measured) => [
    fmt(Math.round(m.cost)),
    `${(m.cost / defaults.cost).toFixed(2)}x`,
    share(m.inPrompt, m.needed),
    share(m.farInPrompt, m.farNeeded),
    per100(m, result.steps),
    String(m.overBudget),
  ];
  const head = [
    'frontier',
    ...names,
    'cost 0.1x read',
    'vs defaults',
    'refs in prompt',
    'first seen >10 back',
    'compactions /100 calls',
    'over budget',
    '',
  ];
  const rows = order.map((i) => {
    const row = result.rows[i] as TuneRow;
    const notes = [
      row.defaults ? 'defaults' : '',
      row.recommended ? 'recommended' : '',
      row.eligible ? '' : 'overflows',
    ];
    return [
      row.onFrontier ? '*' : '',
      ...names.map((name) => String(row.settings[name])),
      ...metrics(row),
      notes.filter(Boolean).join(', '),
    ];
  });
  const baselineRows = result.baselines.map((b) => [
    '',
    b.name,
    ...names.slice(1).map(() => ''),
    ...metrics(b),
    '',
  ]);
  const isMetric = (c: number) => c > names.length && c < head.length - 1;
  const table = columns([head, ...rows], (c) => isMetric(c) || (c >= 1 && c <= names.length));
  const baselineTable = columns(
    [['', 'baseline', ...names.slice(1).map(() => ''), ...head.slice(names.length + 1)], ...baselineRows],
    isMetric,
  );
  const described = (row: TuneRow) => describeSettings(row.settings);
  const placed = defaults.onFrontier
    ? `the defaults (${described(defaults)}) are on the frontier.`
    : `the defaults (${described(defaults)}) are not on the frontier: ${result.dominatingDefaults
        .map((i) => {
          const row = result.rows[i] as TuneRow;
          return `${described(row)} (${(row.cost / defaults.cost).toFixed(2)}x the cost, ${share(row.inPrompt, row.needed)} refs in prompt)`;
        })
        .join('; ')} ${result.dominatingDefaults.length === 1 ? 'dominates them' : 'dominate them'}.`;
  const recommended = result.rows[result.recommended] as TuneRow;
  const lines = [
    table,
    '',
    `refs in prompt: of the ${fmt(defaults.needed)} times the agent used a name an earlier message showed, the share its prompt still held; first seen >10 back: the same over the ${fmt(defaults.farNeeded)} whose name first appeared more than 10 messages before.`,
    `* on the frontier: no other setting is as cheap and keeps as many refs in prompt, and better on one of the two${result.rows.some((r) => !r.eligible) ? " ('overflows': more calls over the budget than the fewest, so off the frontier)" : ''}.`,
    ...(compactedUnderAnySetting(result)
      ? []
      : [
          'no setting compacted: these sessions stay under every compactAt at this window, so the settings measure alike. Sweep them at a smaller --window, or keep the defaults.',
        ]),
    placed,
    `recommended (${RECOMMENDATION_RULE}):`,
    `  createBaton(${asOptions(recommended.settings)})`,
    '',
    'baselines, the same under every setting:',
    baselineTable,
  ];
  if (result.skipped.length > 0)
    lines.push(
      '',
      `skipped, refused by core: ${result.skipped.map((s) => `${describeSettings(s.settings)} (${s.reason})`).join('; ')}`,
    );
  return `${lines.join('\n')}\n`;
}

/** Whether any setting compacted at all: if none did, the sweep cannot tell the settings apart. */
function compactedUnderAnySetting(result: TuneResult): boolean {
  return result.rows.some((row) => row.compactions > 0);
}

/** The sweep for scripts: every row with its shares, the placement and the recommendation. */
export function tuneJson(result: TuneResult, meta: Record<string, unknown>): string {
  const shares = (m: Measured) => ({
    refsInPrompt: m.needed === 0 ? null : m.inPrompt / m.needed,
    farBackInPrompt: m.farNeeded === 0 ? null : m.farInPrompt / m.farNeeded,
    compactionsPer100Calls: result.steps === 0 ? 0 : (100 * m.compactions) / result.steps,
  });
  return `${JSON.stringify(
    {
      ...meta,
      sessions: result.sessions,
      steps: result.steps,
      rule: RECOMMENDATION_RULE,
      defaults: { ...result.rows[result.defaults]?.settings },
      defaultsOnFrontier: result.rows[result.defaults]?.onFrontier,
      dominatingDefaults: result.dominatingDefaults.map((i) => result.rows[i]?.settings),
      recommended: result.rows[result.recommended]?.settings,
      compactedUnderAnySetting: compactedUnderAnySetting(result),
      rows: result.rows.map((row) => ({ ...row, ...shares(row) })),
      baselines: result.baselines.map((b) => ({ ...b, ...shares(b) })),
      skipped: result.skipped,
    },
    null,
    2,
  )}\n`;
}

/** `baton tune`: reads each file once, sweeps, prints the table (or `--json`). */
export async function runTune(
  tokens: readonly Token[],
  values: Record<string, unknown>,
  io: Io,
): Promise<void> {
  const { grid: given, files } = gridAndFiles(tokens);
  if (files.length === 0) throw new UsageError('tune: which session files?');
  const grid = given ?? DEFAULT_GRID;
  checkGrid(grid);
  const window = parseWindow(values.window as string | undefined);
  const model = values.model as string | undefined;
  const contextWindow = window ?? (model ? undefined : 128_000);
  const interval = Number(values.interval ?? 10);
  if (!Number.isInteger(interval) || interval < 1)
    throw new UsageError('--interval: expected a positive whole number of steps');
  const pinned = String(values.pinned ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const thread = values.thread as string | undefined;
  // One id names a conversation of one file, not one in each of several.
  if (thread !== undefined && files.length > 1)
    throw new UsageError('tune: --thread picks a conversation of one file; give that file alone');
  // Every file read before anything is said of one: a missing second file fails on its own.
  const transcripts = files.map((file) => readTranscript(file, thread));
  const sessions = files.map((file, i) => {
    const transcript = transcripts[i]!;
    const notes = readNotes(transcript);
    if (notes) io.err(`${printable(basename(file))}:\n${notes}`);
    return { name: file, entries: transcript.entries };
  });
  const { settings, skipped } = gridSettings(grid);
  const calls = sessions.reduce((n, s) => n + modelCalls(s.entries).length, 0);
  io.err(
    `tune: ${plural(sessions.length, 'session')} (${plural(calls, 'model call')}), ${[model ? `model ${model}` : '', contextWindow ? `window ${fmt(contextWindow)}` : ''].filter(Boolean).join(', ')}; ${plural(settings.length, 'setting')}${skipped.length ? ` (${skipped.length} refused by core, skipped)` : ''}\n${modelNote(model)}`,
  );
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  const result = await tune(
    sessions,
    {
      ...(contextWindow ? { contextWindow } : {}),
      ...(model ? { model } : {}),
      ...(pinned.length ? { pinned } : {}),
      interval,
      grid,
    },
    (done, total, setting) => {
      const line = `setting ${done}/${total}: ${describeSettings(setting)} (${seconds()} s)`;
      // A TTY redraws one line; a log gets one line per setting.
      if (io.isTTY)
        io.err(
          `\r${line.slice(0, Math.max(40, (io.columns ?? 80) - 1)).padEnd((io.columns ?? 80) - 1)}${done === total ? '\n' : ''}`,
        );
      else io.err(`${line}\n`);
    },
  );
  io.err(
    `swept ${plural(settings.length, 'setting')} x ${plural(sessions.length, 'session')} in ${seconds()} s\n`,
  );
  if (values.json)
    io.out(
      tuneJson(result, {
        files,
        ...(contextWindow ? { contextWindow } : {}),
        ...(model ? { model } : {}),
        grid,
        seconds: Number(seconds()),
      }),
    );
  else io.out(tuneText(result));
}

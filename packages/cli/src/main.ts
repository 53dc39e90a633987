import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBaton, RUBRICS, type RubricName, resolveCallBudget } from '@baton/core';
import { fmt } from './chart.ts';
import {
  codeOf,
  InputError,
  modelNote,
  parseWindow,
  plural,
  printable,
  readNotes,
  readTranscript,
  UsageError,
} from './cli-input.ts';
import { costNote } from './cost-report.ts';
import { FORMATS, TranscriptFormatError } from './formats.ts';
import { inspectTranscript } from './inspect.ts';
import type { Io } from './io.ts';
import { modelCalls, replay } from './replay.ts';
import { checkStore, checkStorePath, checkWritable, parseStore } from './replay-outputs.ts';
import { progress, retentionNote, summaryTable, unfitNote } from './replay-text.ts';
import { renderReport } from './report.ts';
import { describeSettings, nonDefaultSettings, parseSettings, SETTING_FLAGS } from './settings.ts';
import { runTune, TUNE_USAGE } from './tune-command.ts';

export { printable, UsageError } from './cli-input.ts';

export const USAGE = `baton: what Baton would have done to your agent's transcript

  baton replay <file> [--window 128k] [--model gpt-4o] [--pinned a,b] [--self-compact search]
                      [--store sqlite:./baton.db] [--report out.html] [--interval 10] [--thread id]
                      [--compact-at 0.8] [--target-at 0.3] [--truncate-at 0.9] [--warn-at 0.64]
                      [--min-compaction-gain 0.3] [--keep-recent 3] [--keep 3]
${TUNE_USAGE}
  baton inspect <file> [--window 128k] [--model gpt-4o] [--thread id]

  <file>: ${Object.values(FORMATS).join('; ')}.
  --window        context window in tokens (128k, 1m or a number); default: the model's, else 128k
  --model         window, tokenizer, prices and its provider's caching rules (the bill) from the model registry
  --pinned        tool names (comma-separated) whose calls and results Baton keeps verbatim, never folded or summarized
  --self-compact  probes with a rubric (${Object.keys(RUBRICS).join(', ')}); offline, answered by a heuristic
  --store         memory (default) or sqlite:<path>
  --report        also write a self-contained HTML report of the replay to this path
  --json          tune: print the sweep as JSON instead of a table
  --interval      steps between compactions of the fixed-interval baseline (default 10)
  --thread        which conversation of a file that holds several (a sub-agent, a simulation);
                  the file's threads are listed when it is read
  --compact-at ... Baton's settings for the replay, createBaton's options of the same name
                  (compactAt, targetAt, truncateAt, warnAt, minCompactionGain, keepRecentGroups,
                  keep); core's defaults otherwise. The baselines keep the defaults.

  --version       the version of @baton/cli

Exit codes: 0 done, 2 bad arguments or an unreadable transcript, 1 anything else.`;

/** This package's version, for `baton --version`. */
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

async function runReplay(file: string, values: Record<string, string | undefined>, io: Io): Promise<void> {
  // Settings first: a mistyped flag is refused before a long file is read.
  const engine = parseSettings(values);
  const moved = nonDefaultSettings(engine);
  const transcript = readTranscript(file, values.thread);
  if (values.report !== undefined) {
    if (resolve(values.report) === resolve(file))
      throw new InputError('--report: that is the transcript itself; give another path');
    checkWritable('--report', values.report);
  }
  if (values.store?.startsWith('sqlite:')) checkStorePath(values.store.slice('sqlite:'.length), file);

  const rubric = values['self-compact'];
  if (rubric !== undefined && !(rubric in RUBRICS))
    throw new UsageError(
      `--self-compact: expected one of ${Object.keys(RUBRICS).join(', ')}, got ${JSON.stringify(rubric)}`,
    );
  const interval = Number(values.interval ?? 10);
  if (!Number.isInteger(interval) || interval < 1)
    throw new UsageError('--interval: expected a positive whole number of steps');
  const contextWindow = parseWindow(values.window) ?? (values.model ? undefined : 128_000);
  const store = parseStore(values.store);
  if (store) await checkStore(store, values.store as string);
  const pinned = (values.pinned ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const settings = [
    values.model ? `model ${values.model}` : '',
    contextWindow ? `window ${fmt(contextWindow)}` : '',
    pinned.length ? `pinned ${pinned.join(', ')}` : '',
    rubric ? `self-compact ${rubric}` : '',
    Object.keys(moved).length > 0 ? describeSettings(moved) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const calls = modelCalls(transcript.entries).length;
  io.err(
    `replaying ${printable(basename(file))} (${FORMATS[transcript.format]}, ${plural(transcript.entries.length, 'message')}, ${plural(calls, 'model call')}), ${settings}\n${readNotes(transcript)}${modelNote(values.model)}`,
  );
  // A pinned name no call in the file uses is most likely a typo: it would pin nothing.
  const called = new Set(
    transcript.entries.flatMap((e) => e.parts.flatMap((p) => (p.type === 'tool-call' ? [p.name] : []))),
  );
  for (const name of pinned.filter((tool) => !called.has(tool)))
    io.err(`note: --pinned ${printable(name)}: no call in this file uses a tool of that name\n`);
  let result: Awaited<ReturnType<typeof replay>>;
  try {
    result = await replay(
      transcript.entries,
      {
        ...(contextWindow ? { contextWindow } : {}),
        ...(values.model ? { model: values.model } : {}),
        pinned,
        ...(rubric ? { selfCompact: rubric as RubricName } : {}),
        ...(store ? { store } : {}),
        interval,
        settings: engine,
      },
      progress(io),
    );
  } finally {
    await (store as { close?: () => Promise<void> } | undefined)?.close?.();
  }
  // The settings a reader must know to compare these numbers with another run's.
  if (Object.keys(moved).length > 0)
    io.out(
      `\nBaton's settings: ${describeSettings(moved)} (core's defaults otherwise; the baselines keep them all)\n`,
    );
  io.out(`\n${summaryTable(result)}\n\n${unfitNote(result)}${retentionNote(result)}\n${costNote(result)}\n`);
  io.out(
    `\n${plural(result.archived, 'entry', 'entries')} archived (recallable verbatim)${result.probes ? `, ${plural(result.probes, 'probe')}` : ''}.\n`,
  );
  if (values.report) {
    writeFileSync(
      values.report,
      renderReport(result, { file: basename(file), format: FORMATS[transcript.format], settings }),
    );
    io.out(`report: ${values.report}\n`);
  }
}

function runInspect(file: string, values: Record<string, string | undefined>, io: Io): void {
  const transcript = readTranscript(file, values.thread);
  const contextWindow = parseWindow(values.window) ?? (values.model ? undefined : 128_000);
  const options = createBaton({
    ...(contextWindow ? { contextWindow } : {}),
    ...(values.model ? { model: values.model } : {}),
  }).options;
  const window = resolveCallBudget(options, {});
  const inputBudget = window.contextWindow - window.reserveOutput;
  const report = inspectTranscript(transcript.entries, options.tokenizer, inputBudget, options.opaqueTokens);
  // Tool names run long (MCP's `mcp__server__tool`): the column is as wide as the longest.
  const toolWidth = Math.max(24, ...report.byTool.map((t) => printable(t.tool).length));
  const lines = [
    `${printable(basename(file))}: ${FORMATS[transcript.format]}${transcript.thread ? `, thread ${printable(transcript.thread)}` : ''}`,
    `${report.messages} messages, ${fmt(report.total)} tokens (${options.tokenizer.name}); input budget ${fmt(inputBudget)}`,
    '',
    'by role:',
    ...report.byRole.map(
      (r) =>
        `  ${r.role.padEnd(10)} ${String(r.messages).padStart(5)} messages ${fmt(r.tokens).padStart(10)} tokens`,
    ),
    '',
    'by tool (results):',
    ...report.byTool.map(
      (t) =>
        `  ${printable(t.tool).padEnd(toolWidth)} ${String(t.calls).padStart(5)} calls ${fmt(t.resultTokens).padStart(10)} tokens, largest ${fmt(t.largest)}`,
    ),
    '',
    'largest messages:',
    ...report.largest.map(
      (m) =>
        `  #${String(m.index).padEnd(5)} ${m.role.padEnd(9)} ${fmt(m.tokens).padStart(8)} ${m.tool ? `[${printable(m.tool)}] ` : ''}${printable(m.preview)}`,
    ),
    '',
    'pinning a tool keeps all its results verbatim; it would take:',
    ...report.pinning.map(
      (p) =>
        `  ${printable(p.tool).padEnd(toolWidth)} ${fmt(p.tokens).padStart(10)} tokens = ${(100 * p.shareOfBudget).toFixed(1)}% of the budget${p.shareOfBudget > 0.5 ? ' (too much to pin)' : ''}`,
    ),
  ];
  io.out(`${readNotes(transcript)}${lines.join('\n')}\n`);
}

/** Options only `replay` uses. */
const REPLAY_ONLY = [
  'pinned',
  'self-compact',
  'store',
  'report',
  'interval',
  ...(Object.keys(SETTING_FLAGS) as Array<keyof typeof SETTING_FLAGS>),
] as const;
/** Options only `tune` uses. */
const TUNE_ONLY = ['grid', 'json'] as const;

/** The CLI: returns the exit code, never throws. */
export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const { positionals, values, tokens } = parseArgs({
      args: argv,
      allowPositionals: true,
      tokens: true,
      options: {
        ...(Object.fromEntries(
          Object.keys(SETTING_FLAGS).map((flag) => [flag, { type: 'string' }]),
        ) as Record<keyof typeof SETTING_FLAGS, { type: 'string' }>),
        grid: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        window: { type: 'string' },
        model: { type: 'string' },
        pinned: { type: 'string' },
        'self-compact': { type: 'string' },
        store: { type: 'string' },
        report: { type: 'string' },
        interval: { type: 'string' },
        thread: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
    const [command, file, ...extra] = positionals;
    if (values.version) {
      io.out(`${VERSION}\n`);
      return 0;
    }
    if (values.help || command === undefined || command === 'help') {
      io.out(`${USAGE}\n`);
      return values.help || command === 'help' ? 0 : 2;
    }
    if (command !== 'replay' && command !== 'inspect' && command !== 'tune')
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    const given = (options: readonly string[]) =>
      options.filter((option) => (values as Record<string, unknown>)[option] !== undefined);
    if (command === 'tune') {
      // tune sweeps Baton's settings itself and reports no single replay's extras.
      const misplaced = given(REPLAY_ONLY.filter((o) => o !== 'interval' && o !== 'pinned'));
      if (misplaced.length > 0)
        throw new UsageError(
          `tune does not take ${misplaced.map((o) => `--${o}`).join(', ')}${misplaced.some((o) => o in SETTING_FLAGS) ? ' (sweep a setting with --grid compactAt=0.7,0.9)' : ''}`,
        );
      await runTune(tokens, values, io);
      return 0;
    }
    const tuneOnly = given(TUNE_ONLY);
    if (tuneOnly.length > 0)
      throw new UsageError(
        `${command} does not take ${tuneOnly.map((o) => `--${o}`).join(', ')} (tune does)`,
      );
    if (file === undefined) throw new UsageError(`${command}: which transcript file?`);
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
    const strings = values as Record<string, string | undefined>;
    if (command === 'inspect') {
      // inspect reads and counts; what only a replay can use is refused, not silently ignored.
      const misplaced = REPLAY_ONLY.filter((option) => strings[option] !== undefined);
      if (misplaced.length > 0)
        throw new UsageError(
          `inspect does not take ${misplaced.map((o) => `--${o}`).join(', ')} (replay does)`,
        );
    }
    if (command === 'replay') await runReplay(file, strings, io);
    else runInspect(file, strings, io);
    return 0;
  } catch (error) {
    const message = printable(String((error as Error)?.message ?? error));
    if (error instanceof UsageError || String(codeOf(error)).startsWith('ERR_PARSE_ARGS')) {
      // Node's parseArgs explains how to pass a positional that starts with '-': not what a
      // mistyped option needs.
      const said = message.replace(/\. To specify a positional argument.*$/s, '');
      io.err(`baton: ${said}\nRun 'baton --help' for the commands and options.\n`);
      return 2;
    }
    if ((error as Error).name === 'BatonConfigError' && /not in the catalog/.test(message)) {
      io.err(
        `baton: --model: ${message.replace(/^.*model '([^']*)'.*$/s, "'$1'")} is not in the model catalog; pass --window with its context window\n`,
      );
      return 2;
    }
    if (
      error instanceof TranscriptFormatError ||
      error instanceof InputError ||
      (error as Error).name === 'BatonConfigError'
    ) {
      io.err(`baton: ${message}\n`);
      return 2;
    }
    io.err(`baton: unexpected error: ${printable(String((error as Error)?.stack ?? error))}\n`);
    return 1;
  }
}

import { fmt } from './chart.ts';
import { billedColumns, percent } from './cost-report.ts';
import type { Io } from './io.ts';
import type { ReplayResult, StepRecord } from './replay.ts';
import { describeEvent } from './report.ts';
import { retentionNote as retentionSentence, retentionShare } from './retention.ts';

/** Progress of a replay: a live bar on a TTY, otherwise one plain line per event. */
export function progress(io: Io) {
  let last = '';
  return (record: StepRecord, total: number) => {
    const events = record.events.map(describeEvent).filter((e): e is string => e !== undefined);
    if (events.length > 0) last = events.at(-1) as string;
    if (io.isTTY) {
      const width = 24;
      const done = Math.round((record.step / total) * width);
      // One terminal line, redrawn in place: a line wider than the terminal wraps and scrolls.
      const columns = Math.max(40, (io.columns ?? 80) - 1);
      io.err(
        `\r[${'#'.repeat(done)}${'-'.repeat(width - done)}] step ${record.step}/${total}  context ${fmt(record.baton)} tokens  ${last}`
          .slice(0, columns)
          .padEnd(columns),
      );
      if (record.step === total) io.err('\n');
    } else {
      for (const event of events) io.err(`step ${record.step}: ${event}\n`);
    }
  };
}

/** The summary per policy, as text columns: what happened to the context, and what it cost. */
export function summaryTable(result: ReplayResult): string {
  const billed = billedColumns(result);
  const rows = [
    [
      'policy',
      'compactions',
      'peak tokens',
      'over budget',
      'opening lost',
      'refs in prompt',
      'or recallable',
      'tokens billed',
      'cost 0.1x read',
      '1.25x write',
      'cached',
      ...billed.map((c) => c.head),
    ],
    ...result.policies.map((p) => [
      p.name,
      String(p.compactions),
      fmt(p.peak),
      String(p.overBudget),
      String(p.openingLost),
      retentionShare(p.retention.inPrompt, p.retention.needed),
      retentionShare(p.retention.recallable, p.retention.needed),
      fmt(p.billed),
      fmt(p.cacheAdjusted),
      fmt(p.cacheAdjustedWrite),
      percent(p.cachedShare),
      ...billed.map((c) => c.cell(p)),
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] as string).length)));
  return rows
    .map((r) =>
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
    )
    .join('\n');
}

/** What the reference columns count, and how many references there were (the same under every policy). */
export const retentionNote = (result: ReplayResult): string =>
  retentionSentence(result.policies[0]?.retention.needed ?? 0, ['refs in prompt', 'or recallable']);

/** Steps a policy ended as unfit: no call made, so neither billed nor counted over the budget. */
export function unfitNote(result: ReplayResult): string {
  return result.policies
    .filter((p) => p.unfit > 0)
    .map(
      (p) =>
        `${p.name} ended ${p.unfit} step${p.unfit === 1 ? '' : 's'} as unfit (what must stay verbatim did not fit the window): the turn ends with a recoverable message and a checkpoint, no call is made.\n`,
    )
    .join('');
}

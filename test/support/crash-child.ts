/**
 * The crash test's child: works through a long compacting agent loop against a SQLite file,
 * resuming from the progress recorded in its notes, until it is killed (SIGKILL, at a random
 * moment) or done. Argument: the database path and the session id.
 */
import { createBaton, sqliteStore } from '@baton/core';
import { CRASH_PLAN, CRASH_ROUNDS, CRASH_WINDOW, crashHistory } from './crash-history.ts';

const [path, sessionId] = process.argv.slice(2) as [string, string];
const session = createBaton({
  contextWindow: CRASH_WINDOW,
  notesCap: 2_000,
  store: sqliteStore({ path }),
}).session(sessionId);
const history = crashHistory(CRASH_ROUNDS);
const progress = await session.notes.read('progress');
const done = progress ? Number(/^step (\d+)$/.exec(progress.text)?.[1]) : 0;
if (!progress) await session.notes.write('plan', CRASH_PLAN);
process.stdout.write('ready\n');
for (let step = done + 1; step <= CRASH_ROUNDS; step++) {
  await session.prepare({ entries: history.slice(0, 2 * step + 1) });
  await session.notes.write('progress', `step ${step}`);
}
process.stdout.write('done\n');

/**
 * What Baton would have done to a session your agent already wrote, in a few lines of the
 * `@baton/cli` API: read the file in whatever format it is (the format is detected), list the
 * conversations it holds, and replay one at a window you choose.
 *
 *   node --conditions=@baton/source --import tsx examples/session-files/index.ts \
 *     ~/.claude/projects/<project>/<session>.jsonl [thread] [window]
 *
 * The same from the command line: `npx baton replay <file> --thread <id> --window 16k`.
 */
import { FORMATS, modelCalls, readSession, replay } from '@baton/cli';

export interface SessionSummary {
  format: string;
  thread: string | undefined;
  threads: string[];
  messages: number;
  modelCalls: number;
  /** Per policy: compactions, peak context tokens, calls over the budget, references kept in the prompt. */
  policies: Array<{
    name: string;
    compactions: number;
    peak: number;
    overBudget: number;
    keptInPrompt: string;
  }>;
}

export async function summarizeSession(
  path: string,
  thread?: string,
  window = 16_000,
): Promise<SessionSummary> {
  const transcript = readSession(path, thread === undefined ? {} : { thread });
  const result = await replay(transcript.entries, { contextWindow: window, pinned: [], interval: 10 });
  return {
    format: FORMATS[transcript.format],
    thread: transcript.thread,
    threads: (transcript.threads ?? []).map((t) => `${t.id}: ${t.label}`),
    messages: transcript.entries.length,
    modelCalls: modelCalls(transcript.entries).length,
    policies: result.policies.map((p) => ({
      name: p.name,
      compactions: p.compactions,
      peak: p.peak,
      overBudget: p.overBudget,
      keptInPrompt: p.retention.needed
        ? `${((100 * p.retention.inPrompt) / p.retention.needed).toFixed(1)}%`
        : 'n/a',
    })),
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const [path, thread, window] = process.argv.slice(2);
  if (!path) {
    console.error('usage: index.ts <session file> [thread] [window tokens]');
    process.exit(2);
  }
  const summary = await summarizeSession(path, thread || undefined, window ? Number(window) : undefined);
  console.log(`${summary.format}${summary.thread ? `, thread ${summary.thread}` : ''}`);
  for (const t of summary.threads) console.log(`  thread ${t}`);
  console.log(`${summary.messages} messages, ${summary.modelCalls} model calls`);
  console.table(summary.policies);
}

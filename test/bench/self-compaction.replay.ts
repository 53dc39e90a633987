/**
 * SELFCOMPACT on the real transcripts: each of the five in ../shared/corpus replayed as an
 * agent loop (one `prepare` before every assistant message) under three policies, in one run:
 * no compaction (what the full history would bill), fixed-interval compaction (the agent's
 * `compact` every 10 steps) and Baton with probes (a scripted probe policy, below). For each:
 * probes, compactions, when they fired (step, tokens) and the input tokens billed over the run
 * (every model call's prompt, plus every probe call's). Run: `pnpm bench`.
 *
 * The scripted probe policy stands in for the model's judgement with the general rubric:
 * WORK-DONE when at least 8 tool results arrived since the last summary (a closed unit of
 * several lookups), NOT-MID unless the newest tool result is an error.
 */
import { createBaton, type Entry, fromOpenAIChat, type ProbeJudge, RUBRICS } from '@baton/core';
import { modelCallPoints } from '../support/generate.ts';
import { CORPUS_MISSING, corpusAvailable, loadCorpus } from '../support/transcripts.ts';

if (!corpusAvailable) {
  console.error(CORPUS_MISSING);
  process.exit(1);
}
const WINDOW = 128_000; // gpt-4o
const INTERVAL = 10;

const policy: ProbeJudge = async ({ entries }) => {
  const sinceSummary = entries.slice(
    Math.max(0, entries.map((e) => e.meta?.synthetic === 'summary').lastIndexOf(true)),
  );
  const results = sinceSummary.filter((e) => e.role === 'tool');
  const newest = results.at(-1)?.parts.find((p) => p.type === 'tool-result') as
    | { isError?: boolean }
    | undefined;
  const answers = { 'WORK-DONE': results.length >= 8, 'NOT-MID': newest?.isError !== true };
  return {
    output: {
      criteria: RUBRICS.general.criteria.map((c) => ({
        id: c.id,
        answer: answers[c.id as keyof typeof answers] ? 'Y' : 'N',
        evidence: `${results.length} results since the last summary`,
      })),
      decision: RUBRICS.general.decide(answers),
    },
  };
};

type Policy = 'none' | 'interval' | 'probes';
interface Row {
  steps: number;
  probes: number;
  compactions: Array<{ step: number; tokens: number; early: boolean }>;
  billed: number;
  largest: number;
}

async function replay(history: Entry[], policyName: Policy): Promise<Row> {
  const row: Row = { steps: 0, probes: 0, compactions: [], billed: 0, largest: 0 };
  const baton = createBaton({
    contextWindow: WINDOW,
    ...(policyName === 'none' ? { compactAt: 1, truncateAt: 1, warnAt: 1, targetAt: 0.99 } : {}),
    ...(policyName === 'probes'
      ? {
          selfCompact: {
            judge: policy,
            probeEvery: 2,
            minSteps: 6,
            minTokens: 4_000,
            cooldownSteps: 6,
            maxCompactions: 1_000,
          },
        }
      : {}),
    onEvent: (event) => {
      if (event.type === 'probe-decided') {
        row.probes++;
        row.billed += event.costTokens;
      }
    },
  });
  const session = baton.session('replay');
  let step = 0;
  for (const point of modelCallPoints(history)) {
    step++;
    if (policyName === 'interval' && step % INTERVAL === 0) session.requestCompaction();
    const prepared = await session.prepare({ entries: history.slice(0, point) });
    row.steps++;
    row.billed += prepared.tokens.after;
    row.largest = Math.max(row.largest, prepared.tokens.after);
    if (prepared.outcome === 'compacted') {
      row.compactions.push({
        step,
        tokens: prepared.tokens.before,
        early: prepared.tokens.before <= baton.options.compactAt * baton.options.inputBudget,
      });
    }
  }
  return row;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const when = (row: Row) =>
  row.compactions.length === 0
    ? '–'
    : row.compactions
        .slice(0, 4)
        .map((c) => `${c.step}@${fmt(c.tokens / 1000)}k${c.early ? '' : '*'}`)
        .join(', ') + (row.compactions.length > 4 ? ', …' : '');

console.log(`# SELFCOMPACT replay (Node ${process.version}, ${new Date().toISOString()})\n`);
console.log(
  `Window ${fmt(WINDOW)} tokens. Probes: general rubric, every 2 steps after 6, above 4,000 tokens, cooldown 6, no cap on compactions; probe calls are billed at their full context. Fixed interval: compact every ${INTERVAL} steps. "when" = step@tokens at the compaction (* = the compactAt backstop, not a probe).\n`,
);
console.log(
  '| transcript | steps | billed, no compaction | billed, every 10 steps (compactions) | billed, probes (probes / compactions) | saved vs none | when (probes) |',
);
console.log('|---|---:|---:|---:|---:|---:|---|');
const totals = { none: 0, interval: 0, probes: 0 };
for (const transcript of loadCorpus()) {
  const history = fromOpenAIChat(transcript.messages);
  const none = await replay(history, 'none');
  const interval = await replay(history, 'interval');
  const probes = await replay(history, 'probes');
  totals.none += none.billed;
  totals.interval += interval.billed;
  totals.probes += probes.billed;
  console.log(
    `| ${transcript.name} | ${probes.steps} | ${fmt(none.billed)} | ${fmt(interval.billed)} (${interval.compactions.length}) | ${fmt(probes.billed)} (${probes.probes} / ${probes.compactions.length}) | ${((100 * (none.billed - probes.billed)) / none.billed).toFixed(0)}% | ${when(probes)} |`,
  );
}
console.log(
  `| **all five** | | ${fmt(totals.none)} | ${fmt(totals.interval)} | ${fmt(totals.probes)} | ${((100 * (totals.none - totals.probes)) / totals.none).toFixed(0)}% | |`,
);

/**
 * The agent-facing half of Baton, without any framework: a scripted agent that reads
 * the notices Baton sends after the conversation, checkpoints with `notes` when warned,
 * compacts at a moment of its choosing with `compact`, and gets evicted text back with
 * `recall`. Adapters expose the same three tools in their host's idiom. Every prompt is billed
 * by core's cost meter at the registry's prices of the model named.
 *
 *   npx -y pnpm@12.4.2 --filter @baton/example-agent-tools start
 */
import {
  costMeter,
  createBaton,
  createEntry,
  type Entry,
  type Part,
  type Prepared,
  promptBlocks,
  TokenCounter,
  tokenPricing,
} from '@baton/core';

const baton = createBaton({ model: 'claude-sonnet-4', contextWindow: 8_000 });
// What each prompt costs at the model's registry prices (cache reads 0.1x, writes 1.25x).
const counter = new TokenCounter(baton.options.tokenizer, baton.options.opaqueTokens);
const meter = costMeter({ pricing: baton.options.pricing ?? tokenPricing() });
const bill = (prepared: Prepared) =>
  meter.bill({ prompt: promptBlocks(prepared, counter), outputTokens: 40 });
const session = baton.session('agent-tools-example');
const tools = new Map(session.tools.map((tool) => [tool.name, tool]));
const history: Entry[] = [
  createEntry(0, 'user', 'Audit the six config files and report which one enables debug mode.'),
];

/** Appends one assistant step with a tool call and its result, running Baton's tools for real. */
async function step(name: string, input: unknown, run?: () => string): Promise<unknown> {
  const id = `call_${history.length}`;
  history.push(createEntry(history.length, 'assistant', [{ type: 'tool-call', id, name, input }]));
  const output = run ? run() : await tools.get(name)!.execute(input);
  const parts: Part[] = [{ type: 'tool-result', callId: id, name, output }];
  history.push(createEntry(history.length, 'tool', parts));
  return output;
}

const configFile = (i: number) =>
  Array.from({ length: 120 }, (_, line) =>
    i === 2 && line === 77
      ? 'debug = true  # left on by hotfix 4411'
      : `option_${line} = value_${(line * 7 + i) % 13}`,
  ).join('\n');

for (let i = 0; i < 6; i++) {
  const prepared = await session.prepare({ entries: history, system: 'You audit configuration files.' });
  bill(prepared);
  for (const notice of prepared.notices) console.log(`[${notice.type}] ${notice.text.split('\n')[0]}`);
  if (prepared.notices.some((n) => n.type === 'warning')) {
    // Warned: keep the finding durable before anything is evicted.
    await step('notes', {
      action: 'append',
      section: 'findings',
      text: 'config_2.ini line 78 sets debug = true (hotfix 4411)',
    });
    console.log('agent -> notes: saved its finding');
  }
  await step('read_file', { path: `config_${i}.ini` }, () => configFile(i));
}

// The agent decides this is a closed unit of work and compacts, keeping what matters.
console.log(
  'agent -> compact:',
  ((await step('compact', { instruction: 'keep which file enables debug mode' })) as { message: string })
    .message,
);
const compacted = await session.prepare({ entries: history, system: 'You audit configuration files.' });
bill(compacted);
console.log(`outcome ${compacted.outcome}: ${compacted.tokens.before} -> ${compacted.tokens.after} tokens`);
for (const notice of compacted.notices) console.log(`[${notice.type}]\n${notice.text}`);

// Later it needs the exact line back: recall by query, verbatim.
const recalled = (await step('recall', { query: 'debug = true' })) as {
  content: string;
  records: { ref: string }[];
};
console.log('agent -> recall:', recalled.records.map((r) => r.ref).join(', '));
console.log(recalled.content.split('\n').find((line) => line.startsWith('debug')));
console.log(`\nsystem prompt the model now sees:\n${compacted.system}`);

const { calls, inputTokens, cachedTokens, cost } = meter.totals;
console.log(
  `${calls} model calls: ${inputTokens} input tokens, ${cachedTokens} read from the prompt cache, $${cost.toFixed(4)} at claude-sonnet-4 prices`,
);

/**
 * Replays a long generated coding-agent transcript through Baton, one model call at a time,
 * and prints the context size against the budget, what each call costs with the provider's
 * prompt cache, and every ladder event. At the end it compares the bill with sending the whole
 * history, and recalls an evicted tool result to show nothing was lost.
 *
 *   npx -y pnpm@12.4.2 demo            (from the repository root)
 *   BATON_DEMO_MODEL=gpt-4o npx -y pnpm@12.4.2 demo
 */
import {
  type BatonEvent,
  costMeter,
  createBaton,
  type Entry,
  entryText,
  fromOpenAIChat,
  type OpenAIMessage,
  promptBlocks,
  TokenCounter,
  tokenPricing,
} from '@baton/core';

const WINDOW = Number(process.env.BATON_DEMO_WINDOW ?? 16_000);
const STEPS = Number(process.env.BATON_DEMO_STEPS ?? 150);
/** Prices (USD) come from the model registry; a model without prices is billed in tokens only. */
const MODEL = process.env.BATON_DEMO_MODEL ?? 'claude-sonnet-4';

/** A deterministic agent session: read files, run tests, edit, with occasional user follow-ups. */
function generateTranscript(steps: number): OpenAIMessage[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const lines = (n: number, prefix: string) =>
    Array.from(
      { length: n },
      (_, i) =>
        `${prefix}${i + 1}: ${['const', 'return', 'if', 'await', 'export'][Math.floor(random() * 5)]} value_${Math.floor(random() * 1000)};`,
    ).join('\n');
  const messages: OpenAIMessage[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools to inspect and fix the repository.' },
    {
      role: 'user',
      content:
        'OPENING REQUEST: the date parser in src/dates.ts drops time zones. Find the bug, fix it, and make the tests pass.',
    },
  ];
  for (let step = 0; step < steps; step++) {
    const id = `call_${step}`;
    const kind = step % 3 === 0 ? 'read_file' : step % 3 === 1 ? 'run_tests' : 'edit_file';
    const args =
      kind === 'read_file'
        ? { path: `src/module_${step}.ts` }
        : kind === 'run_tests'
          ? { filter: `dates ${step}` }
          : { path: `src/dates.ts`, patch: `@@ ${step} @@` };
    messages.push({
      role: 'assistant',
      content: `Step ${step}: ${kind === 'read_file' ? 'reading another module' : kind === 'run_tests' ? 'running the tests' : 'editing the parser'}.`,
      tool_calls: [{ id, type: 'function', function: { name: kind, arguments: JSON.stringify(args) } }],
    });
    const size =
      kind === 'read_file'
        ? 60 + Math.floor(random() * 120)
        : kind === 'run_tests'
          ? 20 + Math.floor(random() * 40)
          : 5;
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: lines(size, kind === 'run_tests' ? 'FAIL test ' : 'line '),
    });
    if (step % 15 === 14)
      messages.push({
        role: 'user',
        content: `Follow-up after step ${step}: keep going, and keep the public API unchanged.`,
      });
  }
  messages.push({ role: 'assistant', content: 'All tests pass; the parser keeps the time zone offset now.' });
  return messages;
}

const bar = (tokens: number, budget: number, width = 32) => {
  const filled = Math.min(width, Math.round((tokens / budget) * width));
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
};
const fmt = (n: number) => n.toLocaleString('en-US');

function describe(event: BatonEvent): string {
  switch (event.type) {
    case 'stage-completed':
      return `${event.stage}: ${fmt(event.tokensBefore)} -> ${fmt(event.tokensAfter)} tokens, ${event.entriesAffected} messages${event.syntheticAffected > 0 ? ` + ${event.syntheticAffected} earlier summaries/digests` : ''}${event.seqRange ? ` (seq ${event.seqRange[0]}-${event.seqRange[1]})` : ''}`;
    case 'budget-exceeded':
      return `unfit: ${event.reason}`;
    default:
      return event.type;
  }
}

const messages = generateTranscript(STEPS);
const history: Entry[] = fromOpenAIChat(messages);
const baton = createBaton({ contextWindow: WINDOW, model: MODEL });
const session = baton.session('demo');
const { inputBudget, compactAt, targetAt, pricing } = baton.options;

// Each call billed as a provider bills it: the prefix a previous prompt shares is read from the
// cache at a tenth of the price, the rest written. Baton's prompts, and the whole history for
// comparison (which would overflow the window: what it would cost if the window allowed it).
// A shared prefix under 1,024 tokens is not cached (OpenAI's and Anthropic's minimum).
const counter = new TokenCounter(baton.options.tokenizer, baton.options.opaqueTokens);
const meters = (prices = tokenPricing()) => ({
  baton: costMeter({ pricing: prices, minCachedTokens: 1_024 }),
  whole: costMeter({ pricing: prices, minCachedTokens: 1_024 }),
});
const tokens = meters();
const dollars = pricing ? meters(pricing) : undefined;

console.log(`Baton replay demo: ${messages.length} messages, context window ${fmt(WINDOW)} tokens, ${MODEL}`);
console.log(
  `input budget ${fmt(inputBudget)} | compact at ${fmt(compactAt * inputBudget)} | target ${fmt(targetAt * inputBudget)}`,
);
console.log('cost: input-token equivalents of the call (cached reads at 0.1)\n');

let calls = 0;
let compactions = 0;
let peak = 0;
for (let i = 1; i <= history.length; i++) {
  if (i < history.length && history[i]!.role !== 'assistant') continue;
  const prepared = await session.prepare({ entries: history.slice(0, i) });
  calls++;
  peak = Math.max(peak, prepared.tokens.after);
  if (prepared.outcome !== 'ok') compactions++;
  // The reply is the transcript's next message (none after the last one).
  const outputTokens = i < history.length ? counter.raw(history[i]!) : 0;
  const sent = promptBlocks(prepared, counter);
  const whole = promptBlocks({ entries: history.slice(0, i) }, counter);
  const cost = tokens.baton.bill({ prompt: sent, outputTokens }).cost;
  tokens.whole.bill({ prompt: whole, outputTokens });
  dollars?.baton.bill({ prompt: sent, outputTokens });
  dollars?.whole.bill({ prompt: whole, outputTokens });
  const line = `call ${String(calls).padStart(3)}  ${bar(prepared.tokens.after, inputBudget)} ${fmt(prepared.tokens.after).padStart(6)} / ${fmt(inputBudget)}  (before: ${fmt(prepared.tokens.before)})  cost ${fmt(Math.round(cost)).padStart(6)}`;
  console.log(prepared.outcome === 'ok' ? line : `${line}  ${prepared.outcome.toUpperCase()}`);
  for (const event of prepared.events) console.log(`          -> ${describe(event)}`);
  // What the agent itself is told (rendered at the end of its system prompt).
  for (const notice of prepared.notices)
    console.log(`          [${notice.type} notice] ${notice.text.split('\n')[0]!.slice(0, 150)}`);
}

const records = await session.archive.range(0, history.length);
console.log(
  `\n${calls} model calls, ${compactions} compactions, peak ${fmt(peak)} tokens of ${fmt(inputBudget)}; ${records.length} messages archived.`,
);
const bill = (name: 'baton' | 'whole') => {
  const { cost, cachedTokens, inputTokens } = tokens[name].totals;
  const usd = dollars ? `, $${dollars[name].totals.cost.toFixed(4)}` : '';
  return `${fmt(Math.round(cost))} input-token equivalents${usd}, ${((100 * cachedTokens) / inputTokens).toFixed(1)}% of input read from the cache`;
};
console.log(`cost with Baton:           ${bill('baton')}`);
console.log(`sending the whole history: ${bill('whole')} (if the window allowed it)`);
if (!dollars) console.log(`(no USD: the registry has no prices for ${MODEL})`);
const folded = records.find((r) => r.entry.role === 'tool');
if (folded) {
  const original = history.find((e) => e.key === folded.ref)!;
  const same = JSON.stringify(folded.entry.parts) === JSON.stringify(original.parts);
  console.log(
    `recall({ ref: "${folded.ref}" }) -> ${same ? 'byte-identical to the original' : 'DIFFERENT from the original'}:`,
  );
  console.log(`  ${JSON.stringify(folded.entry.parts[0]).slice(0, 140)}…`);
}
const final = await session.prepare({ entries: history });
const opening = final.entries.find((e) => e.role === 'user');
console.log(`opening request still in context: ${JSON.stringify(opening?.parts[0])}`);
// The summary the model reads: each call by its result's size and first line (folded or not),
// earlier summaries by their lines; Baton's own headings are not read as the user's words.
const summary = final.entries.find((e) => e.meta?.synthetic === 'summary');
if (summary) {
  console.log('summary in context (first lines):');
  for (const row of entryText(summary).split('\n').slice(0, 8)) console.log(`  ${row.slice(0, 150)}`);
}

import { type BatonOptions, createEntry, type Entry, type Part } from '@baton/core';
import { seededRandom } from '@baton/core/internals';
import fc from 'fast-check';

const WORDS = (
  'the agent reads file config parser error test module import function return value class method ' +
  'update check result output path line token budget context window summary request issue patch ' +
  'fix run command build fail pass assert expected actual diff branch commit merge review user ' +
  'ticket flight booking refund policy price 42 1998 0x1f {"k":1} [a,b] src/app.ts README.md'
).split(' ');

/** Deterministic pseudo-random text of about `chars` characters (mulberry32 over a word list). */
export function text(seed: number, chars: number): string {
  const next = seededRandom(seed);
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!;
    out.push(word);
    length += word.length + 1;
    if (next() < 0.08) out.push('\n');
  }
  return out.join(' ');
}

export const TOOL_NAMES = ['read_file', 'grep', 'bash', 'load_skill'] as const;

const callArb = fc.record({
  tool: fc.constantFrom(...TOOL_NAMES),
  seed: fc.nat(),
  resultChars: fc.oneof(fc.integer({ min: 5, max: 300 }), fc.integer({ min: 300, max: 6_000 })),
  isError: fc.boolean(),
});

const stepArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      thought: fc.integer({ min: 0, max: 200 }),
      calls: fc.array(callArb, { minLength: 1, maxLength: 3 }),
      packed: fc.boolean(),
      seed: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('say' as const),
      chars: fc.integer({ min: 10, max: 1_200 }),
      seed: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      chars: fc.integer({ min: 10, max: 600 }),
      seed: fc.nat(),
    }),
  },
);

export const transcriptSpecArb = fc.record({
  systemChars: fc.integer({ min: 0, max: 1_500 }),
  requestChars: fc.integer({ min: 20, max: 1_500 }),
  seed: fc.nat(),
  steps: fc.array(stepArb, { minLength: 4, maxLength: 50, size: 'max' }),
});

export type TranscriptSpec = typeof transcriptSpecArb extends fc.Arbitrary<infer T> ? T : never;

export const OPENING_MARKER = 'OPENING-REQUEST-7f3a';

/** Builds a valid agent transcript (tool pairing holds) from a spec. */
export function buildTranscript(spec: TranscriptSpec): Entry[] {
  const entries: Entry[] = [];
  const push = (role: Entry['role'], parts: Part[] | string) =>
    entries.push(createEntry(entries.length, role, parts));
  if (spec.systemChars > 0) push('system', `You are a careful agent. ${text(spec.seed, spec.systemChars)}`);
  push('user', `${OPENING_MARKER} ${text(spec.seed + 1, spec.requestChars)}`);
  spec.steps.forEach((step, s) => {
    if (step.kind === 'say') push('assistant', text(step.seed, step.chars));
    else if (step.kind === 'user') push('user', text(step.seed, step.chars));
    else {
      const calls = step.calls.map((call, c) => ({ ...call, id: `call_${s}_${c}` }));
      const parts: Part[] = step.thought > 0 ? [{ type: 'text', text: text(step.seed, step.thought) }] : [];
      for (const call of calls)
        parts.push({ type: 'tool-call', id: call.id, name: call.tool, input: { arg: text(call.seed, 20) } });
      push('assistant', parts);
      const results: Part[] = calls.map((call) => ({
        type: 'tool-result',
        callId: call.id,
        name: call.tool,
        output: text(call.seed + 7, call.resultChars),
        ...(call.isError ? { isError: true } : {}),
      }));
      if (step.packed) push('tool', results);
      else for (const result of results) push('tool', [result]);
    }
  });
  return entries;
}

/** Prefixes of a transcript at which an agent loop calls the model: before every assistant message, and at the end. */
export function modelCallPoints(entries: readonly Entry[]): number[] {
  const points: number[] = [];
  entries.forEach((entry, i) => {
    if (entry.role === 'assistant' && i > 0) points.push(i);
  });
  points.push(entries.length);
  return points;
}

export const optionsArb = fc.record({
  contextWindow: fc.constantFrom(3_000, 5_000, 8_000, 12_000),
  keep: fc.integer({ min: 0, max: 4 }),
  keepRecentGroups: fc.integer({ min: 0, max: 5 }),
  pinnedTools: fc.constantFrom<string[]>([], ['load_skill']),
  thresholds: fc.constantFrom(
    { warnAt: 0.64, compactAt: 0.8, targetAt: 0.5, truncateAt: 0.9 },
    { warnAt: 0.5, compactAt: 0.7, targetAt: 0.3, truncateAt: 0.75 },
    { warnAt: 0.9, compactAt: 0.95, targetAt: 0.8, truncateAt: 1 },
  ),
});

export type OptionsSpec = typeof optionsArb extends fc.Arbitrary<infer T> ? T : never;

/** Baton options for a generated option set. */
export function batonOptions(spec: OptionsSpec, extra: Partial<BatonOptions> = {}): BatonOptions {
  return {
    contextWindow: spec.contextWindow,
    keep: spec.keep,
    keepRecentGroups: spec.keepRecentGroups,
    pinnedTools: spec.pinnedTools,
    ...spec.thresholds,
    ...extra,
  };
}

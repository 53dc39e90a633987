import {
  BatonConfigError,
  type BatonEvent,
  createBaton,
  createEntry,
  type Entry,
  entryText,
  type ProbeJudge,
  RUBRICS,
  type RubricName,
  type SelfCompactOptions,
  type TextCompletion,
  VERBATIM_HEADING,
} from '@baton/core';
import { verbatimLines } from '@baton/core/internals';
import { describe, expect, it } from 'vitest';
import { filler, type ModelView, runAgentLoop } from './support/agent-loop.ts';

type ProbeEvent = Extract<BatonEvent, { type: 'probe-decided' }>;
type CompactedEvent = Extract<BatonEvent, { type: 'self-compacted' }>;

/** A scripted judge: answers each criterion from the context it is sent, like a model would. */
function judgeFrom(
  rubric: RubricName,
  answer: (context: string) => Record<string, boolean>,
  modelDecision?: (context: string) => 'COMPRESS' | 'CONTINUE',
): ProbeJudge & { calls: Array<{ entries: readonly Entry[]; prompt: string }> } {
  const calls: Array<{ entries: readonly Entry[]; prompt: string }> = [];
  const judge = async ({ entries, system, prompt }: Parameters<ProbeJudge>[0]) => {
    calls.push({ entries, prompt });
    const context = `${system}\n${entries.map(entryText).join('\n')}`;
    const answers = answer(context);
    const criteria = RUBRICS[rubric].criteria.map((c) => ({
      id: c.id,
      answer: answers[c.id] ? ('Y' as const) : ('N' as const),
      evidence: 'scripted',
    }));
    const decision = modelDecision?.(context) ?? RUBRICS[rubric].decide(answers);
    return { output: { criteria, decision }, usage: { inputTokens: 1_000, outputTokens: 40 } };
  };
  return Object.assign(judge, { calls });
}

/** A model-backed summary, scripted: keeps the verbatim section it is told to keep, plus a line. */
const scriptedComplete: TextCompletion = async ({ prompt }) => {
  const answers = [...prompt.matchAll(/ANSWER: [^\n"\\]+/g)].map((m) => `- ${m[0]}`);
  return [
    VERBATIM_HEADING,
    ...new Set(answers),
    '',
    `Worked through ${prompt.split('\n').length} lines.`,
  ].join('\n');
};

function setup(selfCompact: SelfCompactOptions, contextWindow = 16_000) {
  const events: BatonEvent[] = [];
  const baton = createBaton({ contextWindow, selfCompact, onEvent: (e) => events.push(e) });
  const probes = () => events.filter((e): e is ProbeEvent => e.type === 'probe-decided');
  const compactions = () => events.filter((e): e is CompactedEvent => e.type === 'self-compacted');
  return { baton, events, probes, compactions };
}

const opening = (text: string) => [createEntry(0, 'user', text)];

describe('self-compaction probes (SELFCOMPACT)', () => {
  it('math: compresses right after the answer is reached, not before, and the answer survives the summary', async () => {
    const judge = judgeFrom('math', (context) => ({
      ANSWER: /ANSWER: \d+/.test(context),
      STUCK: false,
      'HAS-NEXT': true,
    }));
    const { baton, probes, compactions } = setup({
      rubric: 'math',
      judge,
      complete: scriptedComplete,
      probeEvery: 1,
      minSteps: 2,
      minTokens: 0,
      cooldownSteps: 0,
    });
    const ANSWER_STEP = 9;
    const result = await runAgentLoop({
      session: baton.session('math'),
      history: opening('Find the smallest n such that n^2 + n + 41 is composite.'),
      model: ({ step }: ModelView) => {
        if (step === 14) return { done: 'n = 40' };
        const say =
          step === ANSWER_STEP
            ? 'ANSWER: 40 (40^2+40+41 = 41^2), verified by factoring.'
            : `Trying n = ${step}: prime. ${filler(300, step)}`;
        return { say, calls: [{ name: 'calc', input: { n: step } }] };
      },
      tools: {
        calc: (input) => `n=${(input as { n: number }).n}: ${filler(400, (input as { n: number }).n)}`,
      },
      maxSteps: 20,
    });

    expect(result.finished).toBe(true);
    const firstCompress = probes().find((p) => p.decision === 'COMPRESS')!;
    // The answer is said at model step 9 (prepare 10); the probe before the next call (prepare 11) compresses.
    expect(
      probes()
        .filter((p) => p.step <= ANSWER_STEP + 1)
        .every((p) => p.decision === 'CONTINUE'),
    ).toBe(true);
    expect(firstCompress.step).toBe(ANSWER_STEP + 2);
    expect(firstCompress.criteria).toContainEqual({ id: 'ANSWER', answer: 'Y', evidence: 'scripted' });
    expect(compactions()[0]).toMatchObject({ step: ANSWER_STEP + 2, early: true });
    expect(compactions()[0]!.summaryTokens).toBeGreaterThan(0);
    // What the model got right after: the opening request, the summary of the attempts, the
    // newest turns (the answer among them) verbatim.
    const after = result.prepared[ANSWER_STEP + 1]!;
    expect(after.outcome).toBe('compacted');
    expect(entryText(after.entries[0]!)).toBe('Find the smallest n such that n^2 + n + 41 is composite.');
    expect(after.entries[1]!.meta?.synthetic).toBe('summary');
    expect(after.entries.map(entryText).join('\n')).toContain(
      'ANSWER: 40 (40^2+40+41 = 41^2), verified by factoring.',
    );
    expect(after.entries.length).toBeLessThan(result.prepared[ANSWER_STEP]!.entries.length);
  });

  it('search: a stuck run (3 of the last 4 searches found nothing new) is not compressed, and a model that misapplies the rule is logged', async () => {
    const judge = judgeFrom(
      'search',
      (context) => {
        const recent = [...context.matchAll(/results: (\w+)/g)].slice(-4).map((m) => m[1]);
        const nothing = recent.filter((r) => r === 'none').length;
        return { 'CLOSED-UNIT': true, SUMMARIZABLE: true, PROGRESS: true, STUCK: nothing >= 3 };
      },
      () => 'COMPRESS', // the model says COMPRESS every time; the rule decides
    );
    const { baton, probes, compactions } = setup({
      rubric: 'search',
      judge,
      probeEvery: 1,
      minSteps: 6,
      minTokens: 0,
      cooldownSteps: 0,
    });
    await runAgentLoop({
      session: baton.session('search'),
      history: opening('Who first proved the four colour theorem?'),
      model: ({ step }: ModelView) =>
        step >= 12
          ? { done: 'not found yet' }
          : { calls: [{ name: 'search', input: { q: `four colour proof ${step}` } }] },
      // Two useful hits, then nothing new at all.
      tools: {
        search: (input) =>
          String((input as { q: string }).q).endsWith(' 0') ||
          String((input as { q: string }).q).endsWith(' 1')
            ? `results: found ${filler(200, 1)}`
            : 'results: none',
      },
      maxSteps: 20,
    });
    expect(probes().length).toBeGreaterThan(3);
    for (const probe of probes()) {
      expect(probe.criteria).toContainEqual({ id: 'STUCK', answer: 'Y', evidence: 'scripted' });
      expect(probe.decision).toBe('CONTINUE');
      expect(probe).toMatchObject({ modelDecision: 'COMPRESS', agreed: false });
    }
    expect(compactions()).toHaveLength(0);
  });

  it('coding: compresses after a passing test cycle, with the coding summary instruction', async () => {
    const judge = judgeFrom('coding', (context) => {
      const closed = /tests: 12 passed/.test(context);
      return {
        'CYCLE-CLOSED': closed,
        'FILES-KNOWN': true,
        'COMMANDS-KNOWN': true,
        'TESTS-KNOWN': true,
        'NEXT-EDIT': true,
      };
    });
    let instruction: string | undefined;
    const { baton, probes, compactions } = setup({
      rubric: 'coding',
      judge,
      complete: async (request) => {
        instruction = request.system;
        return scriptedComplete(request);
      },
      probeEvery: 1,
      minSteps: 1,
      minTokens: 0,
      cooldownSteps: 0,
    });
    const PASS_STEP = 7;
    await runAgentLoop({
      session: baton.session('coding'),
      history: opening('Fix the failing date parser tests.'),
      model: ({ step }: ModelView) => {
        if (step >= 10) return { done: 'fixed' };
        if (step === PASS_STEP) return { calls: [{ name: 'run_tests', input: {} }] };
        return { calls: [{ name: 'edit', input: { path: `src/date_${step}.ts` } }] };
      },
      tools: {
        edit: (input) => `edited ${(input as { path: string }).path}\n${filler(500, 3)}`,
        run_tests: () => 'tests: 12 passed, 0 failed',
      },
      maxSteps: 20,
    });
    const compress = probes().find((p) => p.decision === 'COMPRESS')!;
    expect(compress.step).toBe(PASS_STEP + 2);
    expect(
      probes()
        .filter((p) => p.step < PASS_STEP + 2)
        .every((p) => p.decision === 'CONTINUE'),
    ).toBe(true);
    expect(compactions()[0]).toMatchObject({ early: true });
    expect(instruction).toContain('files changed');
  });

  it('obeys probeEvery, minSteps, cooldownSteps and maxCompactions', async () => {
    const judge = judgeFrom('general', () => ({ 'WORK-DONE': true, 'NOT-MID': true }));
    const { baton, probes, compactions } = setup({
      judge,
      probeEvery: 3,
      minSteps: 5,
      minTokens: 0,
      cooldownSteps: 4,
      maxCompactions: 2,
    });
    await runAgentLoop({
      session: baton.session('schedule'),
      history: opening('Read everything.'),
      model: ({ step }: ModelView) =>
        step >= 30 ? { done: 'ok' } : { calls: [{ name: 'read', input: { n: step } }] },
      tools: {
        read: (input) => `page ${(input as { n: number }).n}\n${filler(300, (input as { n: number }).n)}`,
      },
      maxSteps: 40,
    });
    const steps = probes().map((p) => p.step);
    const compacted = compactions().map((c) => c.step);
    // First probe at minSteps; then every probeEvery (3) steps. COMPRESS at 5 found no span
    // worth a summary yet (the newest 3 turns stay verbatim), so nothing was compacted.
    expect(steps).toEqual([5, 8, 12]);
    expect(compacted).toEqual([8, 12]);
    // After the compaction at 8, the cooldown (4) holds the next probe back past the interval.
    expect(steps.filter((s) => s > 8)[0]! - 8).toBeGreaterThanOrEqual(4);
    // maxCompactions (2) reached: no probe after that.
    expect(steps.filter((s) => s > 12)).toHaveLength(0);
  });

  for (const failure of ['throws', 'times out', 'unparseable'] as const) {
    it(`a probe that ${failure} below the backstop changes nothing and is logged`, async () => {
      const judge: ProbeJudge = async ({ signal }) => {
        if (failure === 'throws') throw new Error('model unavailable');
        if (failure === 'times out')
          return new Promise((_, reject) =>
            signal.addEventListener('abort', () => reject(new Error('aborted'))),
          );
        return { output: 'I think we should maybe compress?' };
      };
      const run = async (selfCompact: SelfCompactOptions | undefined) => {
        const events: BatonEvent[] = [];
        const baton = createBaton({
          contextWindow: 16_000,
          ...(selfCompact ? { selfCompact } : {}),
          onEvent: (e) => events.push(e),
        });
        const result = await runAgentLoop({
          session: baton.session('f'),
          history: opening('Read the pages.'),
          model: ({ step }: ModelView) =>
            step >= 8 ? { done: 'ok' } : { calls: [{ name: 'read', input: { n: step } }] },
          tools: { read: (input) => `page ${(input as { n: number }).n}\n${filler(200, 1)}` },
          maxSteps: 10,
        });
        return { result, events };
      };
      const probing = await run({
        judge,
        probeEvery: 1,
        minSteps: 1,
        minTokens: 0,
        cooldownSteps: 0,
        timeoutMs: 50,
      });
      const plain = await run(undefined);
      expect(probing.result.prepared.map((p) => p.entries.map((e) => e.key))).toEqual(
        plain.result.prepared.map((p) => p.entries.map((e) => e.key)),
      );
      const probes = probing.events.filter((e): e is ProbeEvent => e.type === 'probe-decided');
      expect(probes.length).toBeGreaterThan(3);
      for (const probe of probes) {
        expect(probe.decision).toBe('CONTINUE');
        expect(probe.error).toMatch(
          failure === 'throws'
            ? /model unavailable/
            : failure === 'times out'
              ? /timed out/
              : /unparseable|JSON/,
        );
      }
    });
  }

  it('a continuation summary that fails during an optional compaction leaves the context as it was', async () => {
    const judge = judgeFrom('general', () => ({ 'WORK-DONE': true, 'NOT-MID': true }));
    const { baton, events } = setup({
      judge,
      complete: async () => {
        throw new Error('summary model down');
      },
      probeEvery: 1,
      minSteps: 1,
      minTokens: 0,
      cooldownSteps: 0,
    });
    // Only long reasoning messages: nothing to fold, so a compaction needs the summary.
    const result = await runAgentLoop({
      session: baton.session('s'),
      history: opening('Think it through.'),
      model: ({ step }: ModelView) =>
        step >= 8
          ? { done: 'ok' }
          : { say: `step ${step}: ${filler(500, step)}`, calls: [{ name: 'note', input: {} }] },
      tools: { note: () => 'ok' },
      maxSteps: 10,
    });
    expect(events.filter((e) => e.type === 'self-compaction-abandoned').length).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'self-compacted')).toHaveLength(0);
    for (const prepared of result.prepared) expect(prepared.outcome).toBe('ok');
  });

  it('the backstop still compacts at compactAt while every probe says CONTINUE', async () => {
    const judge = judgeFrom('general', () => ({ 'WORK-DONE': false, 'NOT-MID': false }));
    const { baton, probes, events } = setup(
      { judge, probeEvery: 1, minSteps: 1, minTokens: 0, cooldownSteps: 0 },
      8_000,
    );
    const result = await runAgentLoop({
      session: baton.session('b'),
      history: opening('Read the logs.'),
      model: ({ step }: ModelView) =>
        step >= 40 ? { done: 'ok' } : { calls: [{ name: 'read', input: { n: step } }] },
      tools: {
        read: (input) => `page ${(input as { n: number }).n}\n${filler(700, (input as { n: number }).n)}`,
      },
      maxSteps: 45,
    });
    expect(probes().every((p) => p.decision === 'CONTINUE')).toBe(true);
    const compacted = events.filter((e): e is CompactedEvent => e.type === 'self-compacted');
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted.every((c) => !c.early)).toBe(true);
    for (const prepared of result.prepared)
      expect(prepared.tokens.after).toBeLessThanOrEqual(prepared.tokens.budget);
  });

  it('keeps verbatim markers and the opening request through 10 successive compactions, with a forgetful summarizer', async () => {
    const judge = judgeFrom('search', () => ({
      'CLOSED-UNIT': true,
      SUMMARIZABLE: true,
      PROGRESS: true,
      STUCK: false,
    }));
    // The summary model only keeps what it sees in the newest span: earlier answers would be lost without the carry.
    const forgetful: TextCompletion = async ({ prompt }) => {
      const span = prompt.slice(prompt.indexOf('Conversation to summarize:'));
      const found = [...span.matchAll(/FOUND: [^\n"\\]+/g)].map((m) => `- ${m[0]}`);
      return [VERBATIM_HEADING, ...found, '', 'Searched further.'].join('\n');
    };
    const { baton, compactions } = setup({
      rubric: 'search',
      judge,
      complete: forgetful,
      probeEvery: 1,
      minSteps: 1,
      minTokens: 0,
      cooldownSteps: 2,
      maxCompactions: 10,
    });
    const OPENING = 'List the founding dates of the ten oldest universities, with sources.';
    const result = await runAgentLoop({
      session: baton.session('markers'),
      history: opening(OPENING),
      model: ({ step }: ModelView) =>
        step >= 60
          ? { done: 'ok' }
          : {
              say: step % 3 === 0 ? `FOUND: fact ${step} (source s${step})` : 'searching',
              calls: [{ name: 'search', input: { q: step } }],
            },
      tools: {
        search: (input) =>
          `hits for ${(input as { q: number }).q}\n${filler(400, (input as { q: number }).q)}`,
      },
      maxSteps: 70,
    });
    expect(compactions().length).toBeGreaterThanOrEqual(10);
    const last = result.prepared.at(-1)!;
    expect(entryText(last.entries[0]!)).toBe(OPENING);
    const summary = last.entries.find((e) => e.meta?.synthetic === 'summary')!;
    const kept = verbatimLines(entryText(summary));
    // Every fact found before the last summary's span is still there, character for character.
    const lastSummarized = Math.max(
      ...[...entryText(summary).matchAll(/fact (\d+)/g)].map((m) => Number(m[1])),
    );
    for (let step = 0; step <= lastSummarized; step += 3)
      expect(kept).toContain(`- FOUND: fact ${step} (source s${step})`);
  });
});

describe('selfCompact options', () => {
  it('accepts a custom rubric, applies its rule in code, and uses its summary instruction', async () => {
    const rubric = {
      id: 'support',
      criteria: [
        { id: 'RESOLVED', question: 'Is the customer’s current issue resolved?' },
        { id: 'LOGGED', question: 'Is the resolution recorded in the ticket?' },
      ],
      decide: (a: Readonly<Record<string, boolean>>) =>
        a.RESOLVED && a.LOGGED ? ('COMPRESS' as const) : ('CONTINUE' as const),
      rule: 'COMPRESS if RESOLVED and LOGGED.',
      summaryInstruction: 'Keep the ticket id, the customer’s issue and its resolution.',
    };
    const events: BatonEvent[] = [];
    let instruction = '';
    const judge: ProbeJudge = async ({ prompt }) => {
      expect(prompt).toContain('- RESOLVED: Is the customer’s current issue resolved?');
      return {
        output: {
          criteria: [
            { id: 'resolved', answer: 'Y', evidence: 'refund issued' },
            { id: 'LOGGED', answer: 'Y', evidence: 'ticket updated' },
          ],
          decision: 'CONTINUE',
        },
      };
    };
    const baton = createBaton({
      contextWindow: 16_000,
      selfCompact: {
        rubric,
        judge,
        complete: async ({ system }) => {
          instruction = system;
          return 'Ticket T-1: refund issued.';
        },
        probeEvery: 1,
        minSteps: 5,
        minTokens: 0,
        cooldownSteps: 0,
        maxCompactions: 1,
      },
      onEvent: (e) => events.push(e),
    });
    await runAgentLoop({
      session: baton.session('support'),
      history: opening('I was charged twice.'),
      model: ({ step }: ModelView) =>
        step >= 8 ? { done: 'ok' } : { calls: [{ name: 'lookup', input: { n: step } }] },
      tools: { lookup: (input) => `record ${(input as { n: number }).n}\n${filler(400, 2)}` },
      maxSteps: 10,
    });
    const probe = events.find((e): e is ProbeEvent => e.type === 'probe-decided')!;
    // Criterion ids match case-insensitively; the rule (COMPRESS) wins over the model's CONTINUE.
    expect(probe).toMatchObject({
      rubric: 'support',
      decision: 'COMPRESS',
      modelDecision: 'CONTINUE',
      agreed: false,
    });
    expect(instruction).toContain('Keep the ticket id');
  });

  it('rejects bad selfCompact options with a BatonConfigError naming the field', () => {
    expect(() => createBaton({ contextWindow: 8_000, selfCompact: { rubric: 'poetry' as never } })).toThrow(
      /selfCompact\.rubric/,
    );
    expect(() => createBaton({ contextWindow: 8_000, selfCompact: { probeEvery: 0 } })).toThrow(
      /selfCompact\.probeEvery/,
    );
    expect(() => createBaton({ contextWindow: 8_000, selfCompact: { judge: 'gpt-4o' as never } })).toThrow(
      /selfCompact\.judge/,
    );
    expect(() => createBaton({ contextWindow: 8_000, selfCompact: { every: 3 } as never })).toThrow(
      BatonConfigError,
    );
  });
});

import {
  type BatonOptions,
  createBaton,
  type Entry,
  memoryStore,
  type Prepared,
  type Store,
} from '@baton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batonOptions,
  buildTranscript,
  modelCallPoints,
  type OptionsSpec,
  optionsArb,
  transcriptSpecArb,
} from './support/generate.ts';
import { invariantViolations } from './support/invariants.ts';
import { propertyRuns } from './support/property-runs.ts';

const RUNS = 60;

/** Runs the transcript as an agent loop and collects the violations of the given invariants at every step. */
async function loopViolations(
  history: Entry[],
  spec: OptionsSpec,
  invariants: string[],
  extra: Partial<BatonOptions> = {},
) {
  const baton = createBaton(batonOptions(spec, extra));
  const session = baton.session('property');
  const found: string[] = [];
  for (const point of modelCallPoints(history)) {
    const prefix = history.slice(0, point);
    const prepared = await session.prepare({ entries: prefix });
    const violations = await invariantViolations({
      history: prefix,
      prepared,
      session,
      budget: baton.options.inputBudget!,
      pinnedTools: spec.pinnedTools,
    });
    found.push(
      ...violations
        .filter((v) => invariants.some((n) => v.startsWith(`${n} `)))
        .map((v) => `step ${point}: ${v}`),
    );
  }
  return found;
}

const invariantProperty = (...invariants: string[]) =>
  fc.asyncProperty(transcriptSpecArb, optionsArb, async (transcriptSpec, spec) => {
    const violations = await loopViolations(buildTranscript(transcriptSpec), spec, invariants);
    expect(violations).toEqual([]);
  });

/** Invariant 9 on one random loop: the last projection, prepared again or by a new process, is unchanged. */
const idempotentProperty = fc.asyncProperty(transcriptSpecArb, optionsArb, async (transcriptSpec, spec) => {
  const history = buildTranscript(transcriptSpec);
  const store = memoryStore();
  const session = createBaton(batonOptions(spec, { store })).session('a');
  let last: Prepared | undefined;
  for (const point of modelCallPoints(history))
    last = await session.prepare({ entries: history.slice(0, point) });
  const again = await session.prepare({ entries: last!.entries });
  expect(JSON.stringify(again.entries)).toBe(JSON.stringify(last!.entries));
  if (last!.outcome !== 'unfit') {
    // A new process resuming the conversation (its ledger and state read back, the floor
    // a backstop compaction left included) changes nothing either.
    const fresh = await createBaton(batonOptions(spec, { store }))
      .session('a')
      .prepare({ entries: last!.entries });
    expect(JSON.stringify(fresh.entries)).toBe(JSON.stringify(last!.entries));
  }
});

describe('DESIGN.md invariants on random agent loops', () => {
  it('invariant 1 (tool pairing): every result has its call and every call its result', async () => {
    await fc.assert(invariantProperty('1'), propertyRuns(RUNS));
  });

  it('invariant 2 (system and opening request verbatim)', async () => {
    await fc.assert(invariantProperty('2'), propertyRuns(RUNS));
  });

  it('invariant 3 (a non-system message, the current turn and the newest step present)', async () => {
    await fc.assert(invariantProperty('3'), propertyRuns(RUNS));
  });

  it('invariant 4 (pinned tools verbatim)', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptSpecArb, optionsArb, async (transcriptSpec, spec) => {
        const violations = await loopViolations(
          buildTranscript(transcriptSpec),
          { ...spec, pinnedTools: ['load_skill'] },
          ['4'],
        );
        expect(violations).toEqual([]);
      }),
      propertyRuns(RUNS),
    );
  });

  it('invariant 5 (within the input budget, or outcome unfit; the reported count is exact)', async () => {
    await fc.assert(invariantProperty('5'), propertyRuns(RUNS));
  });

  it('invariant 6 (nothing lost): every evicted entry is archived byte-identical', async () => {
    await fc.assert(invariantProperty('6'), propertyRuns(RUNS));
  });

  it('invariant 7 (deterministic): same history and ledger give the same projection', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptSpecArb, optionsArb, async (transcriptSpec, spec) => {
        const history = buildTranscript(transcriptSpec);
        const store = memoryStore();
        const first = createBaton(batonOptions(spec, { store })).session('a');
        const second = createBaton(batonOptions(spec)).session('a');
        let a: Prepared | undefined;
        let prefix: Entry[] = [];
        for (const point of modelCallPoints(history)) {
          prefix = history.slice(0, point);
          a = await first.prepare({ entries: prefix });
          const b = await second.prepare({ entries: prefix });
          expect(JSON.stringify(b.entries)).toBe(JSON.stringify(a.entries));
        }
        // A new process reading the persisted ledger projects the same history identically. (Read
        // once the loop is done: its own state writes, such as the floor it finds with other
        // thresholds, would otherwise reach the first session's next calls.)
        const reloaded = createBaton(
          batonOptions(spec, { store, compactAt: 1, truncateAt: 1, warnAt: 1 }),
        ).session('a');
        const c = await reloaded.prepare({ entries: prefix });
        expect(JSON.stringify(c.entries)).toBe(JSON.stringify(a!.entries));
      }),
      propertyRuns(RUNS / 2),
    );
  });

  it('invariant 8 (failure-open): failing summarizers and stores never throw out of prepare', async () => {
    await fc.assert(
      fc.asyncProperty(
        transcriptSpecArb,
        optionsArb,
        fc.record({
          summarizerFails: fc.boolean(),
          failRate: fc.double({ min: 0, max: 1, noNaN: true }),
          seed: fc.nat(),
        }),
        async (transcriptSpec, spec, failure) => {
          let state = failure.seed;
          const flaky = () => {
            state = (state * 1103515245 + 12345) % 2 ** 31;
            if (state / 2 ** 31 < failure.failRate) throw new Error('injected store failure');
          };
          const inner = memoryStore();
          const store: Store = {
            getDocument: async (...args) => {
              flaky();
              return inner.getDocument(...args);
            },
            putDocument: async (...args) => {
              flaky();
              return inner.putDocument(...args);
            },
            appendArchive: async (...args) => {
              flaky();
              return inner.appendArchive(...args);
            },
            getArchive: (...args) => inner.getArchive(...args),
            rangeArchive: (...args) => inner.rangeArchive(...args),
            searchArchive: (...args) => inner.searchArchive(...args),
          };
          const summarizer = async () => {
            if (failure.summarizerFails) throw new Error('injected summarizer failure');
            return 'summary';
          };
          const violations = await loopViolations(
            buildTranscript(transcriptSpec),
            spec,
            ['1', '2', '3', '4', '5', '6', '10'],
            {
              store,
              summarizer,
            },
          );
          expect(violations).toEqual([]);
        },
      ),
      propertyRuns(RUNS),
    );
  });

  it('invariant 9 (idempotent): preparing a prepared projection changes nothing further', async () => {
    await fc.assert(idempotentProperty, propertyRuns(RUNS));
  });

  it('invariant 9 on the random loops that once broke it (replayed by seed and path)', async () => {
    // Found by the property above (one run in about 200): a retry paying cache rent, a later
    // ladder pass misjudging its gains, an over-budget prompt one pass short of settled, and a
    // warning pushing a prompt past the budget. Replays run the same loops while the generators
    // stay as they are.
    const broke: Array<[seed: number, path: number]> = [
      [1, 126],
      [1, 498],
      [2, 232],
      [2, 532],
      [3, 287],
      [3, 338],
      [5, 164],
      [5, 1300],
      [6, 468],
      [6, 1395],
    ];
    for (const [seed, path] of broke)
      await fc.assert(idempotentProperty, { seed, path: String(path), numRuns: 1, endOnFailure: true });
  });

  it('invariant 10 (unconsumed tool results are never folded or summarized)', async () => {
    await fc.assert(invariantProperty('10'), propertyRuns(RUNS));
  });
});

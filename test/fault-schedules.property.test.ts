import {
  type ArchiveRecord,
  createBaton,
  createEntry,
  defaultStages,
  defineStage,
  type Entry,
  entryText,
  memoryStore,
  type Store,
  type Summarizer,
} from '@baton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from './support/property-runs.ts';

// Every call Baton makes into user code (summarizer, probe judge, custom stage, store) may
// throw, reject, hang or return garbage. Whatever the schedule, `prepare` settles within its
// deadlines and no input entry is lost: each is in the projection as it was sent, or in the
// archive byte-identical (checked in the store behind the faults).

type Behaviour = 'ok' | 'throw' | 'reject' | 'hang' | 'garbage';
const BEHAVIOURS: Behaviour[] = ['ok', 'throw', 'reject', 'hang', 'garbage'];
const RUNS = 200;
/** Every deadline is a few milliseconds, so a hang costs little; a prepare past this did not settle. */
const DEADLINE_MS = 5;
const SETTLE_LIMIT_MS = 3_000;

/** Calls `ok` or misbehaves, following the plan in a cycle. */
function faulty<T>(
  plan: readonly Behaviour[],
  ok: () => Promise<T>,
  garbage: () => unknown,
): () => Promise<T> {
  let call = 0;
  return () => {
    const behaviour = plan[call++ % plan.length]!;
    if (behaviour === 'throw') throw new Error('fault: thrown');
    if (behaviour === 'reject') return Promise.reject(new Error('fault: rejected'));
    if (behaviour === 'hang') return new Promise<T>(() => {});
    if (behaviour === 'garbage') return Promise.resolve(garbage() as T);
    return ok();
  };
}

const planArb = fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: 1, maxLength: 6 });
const scheduleArb = fc.record({
  summarizer: planArb,
  judge: planArb,
  stage: planArb,
  getDocument: planArb,
  putDocument: planArb,
  appendArchive: planArb,
  steps: fc.integer({ min: 6, max: 14 }),
  resultWords: fc.integer({ min: 120, max: 420 }),
});
type Schedule = typeof scheduleArb extends fc.Arbitrary<infer T> ? T : never;

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

function faultyStore(inner: Store, schedule: Schedule): Store {
  return {
    ...inner,
    getDocument: <T>(namespace: string, key: string) =>
      faulty(
        schedule.getDocument,
        () => inner.getDocument<T>(namespace, key),
        () => ({ value: null, version: 99 }),
      )(),
    documentVersion: async () => -1, // always "changed": every call reads the (faulty) documents
    putDocument: <T>(namespace: string, key: string, value: T, expected: number) =>
      faulty(
        schedule.putDocument,
        () => inner.putDocument(namespace, key, value, expected),
        () => ({}),
      )(),
    // An archive write either happens or fails: a store that claims success and drops the
    // records is not a fault Baton can see.
    appendArchive: (sessionId: string, records: readonly ArchiveRecord[]) =>
      faulty(
        schedule.appendArchive.map((b) => (b === 'garbage' ? 'ok' : b)),
        () => inner.appendArchive(sessionId, records),
        () => undefined,
      )(),
  };
}

async function runSchedule(schedule: Schedule): Promise<string | undefined> {
  const inner = memoryStore();
  const summarize: Summarizer = async ({ entries }) => `summary of ${entries.length} messages`;
  const summarizer = faulty(
    schedule.summarizer,
    () => summarize({ entries: [], maxTokens: 100 }),
    () => 42,
  );
  const judge = faulty(
    schedule.judge,
    async () => ({ output: { decision: 'CONTINUE' } }),
    () => ({ output: 'not an answer' }),
  );
  const stageCall = faulty(
    schedule.stage,
    async () => ({ decisions: [] }),
    () => ({ decisions: [null] }),
  );
  const baton = createBaton({
    contextWindow: 4_000,
    store: faultyStore(inner, schedule),
    summarizer: () => summarizer(),
    stages: [defineStage('user-stage', () => stageCall()), ...defaultStages()],
    summaryTimeoutMs: DEADLINE_MS,
    storeTimeoutMs: DEADLINE_MS,
    stageTimeoutMs: 20 * DEADLINE_MS,
    selfCompact: {
      judge: () => judge(),
      minSteps: 0,
      probeEvery: 1,
      minTokens: 0,
      timeoutMs: DEADLINE_MS,
      modelSummaries: false,
    },
  });
  const session = baton.session('faults');
  const history: Entry[] = [createEntry(0, 'user', 'OPENING: audit the repository', 'h-0')];
  for (let step = 0; step < schedule.steps; step++) {
    const id = `c${step}`;
    history.push(
      createEntry(
        history.length,
        'assistant',
        [{ type: 'tool-call', id, name: 'read', input: { step } }],
        `h-${history.length}`,
      ),
      createEntry(
        history.length + 1,
        'tool',
        [{ type: 'tool-result', callId: id, name: 'read', output: words(schedule.resultWords, step) }],
        `h-${history.length + 1}`,
      ),
    );
    const started = performance.now();
    const settled = await Promise.race([
      session.prepare({ entries: history }).then(
        (prepared) => ({ prepared }),
        (error: unknown) => ({ error }),
      ),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), SETTLE_LIMIT_MS)),
    ]);
    if (settled === 'hung') return `step ${step}: prepare did not settle within ${SETTLE_LIMIT_MS} ms`;
    if ('error' in settled) return `step ${step}: prepare rejected: ${String(settled.error)}`;
    const elapsed = performance.now() - started;
    if (elapsed > SETTLE_LIMIT_MS) return `step ${step}: prepare took ${Math.round(elapsed)} ms`;
    const shown = new Map(settled.prepared.entries.map((e) => [e.key, e]));
    for (const entry of history) {
      const inPrompt = shown.get(entry.key);
      if (inPrompt && JSON.stringify(inPrompt.parts) === JSON.stringify(entry.parts)) continue;
      const archived = await inner.getArchive('faults', entry.key);
      if (!archived || JSON.stringify(archived.entry) !== JSON.stringify(entry))
        return `step ${step}: ${entry.key} (${entryText(entry).slice(0, 40)}) is neither in the projection nor archived byte-identical`;
    }
  }
  return undefined;
}

describe('random fault schedules in user code and the store', () => {
  it(`prepare settles and loses nothing under ${RUNS} schedules`, async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb, async (schedule) => {
        expect(await runSchedule(schedule)).toBeUndefined();
      }),
      propertyRuns(RUNS, 560_000),
    );
  }, 600_000);
});

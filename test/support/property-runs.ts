import fc from 'fast-check';

/**
 * fast-check parameters for a property test: `numRuns`, and a time limit below the test's own
 * timeout (Vitest's is 120 s). A failing property shrinks its counterexample by running the
 * predicate again and again; an agent loop per run makes that last far past the timeout, and
 * Vitest, once it gave up on the test, cannot stop it: it runs on in the worker beside the
 * next tests (one CI run took 80 minutes so). At the limit fast-check stops and reports the
 * failure with what it shrank so far, its seed and path replayable; a property that has not
 * finished its runs by then fails too.
 */
export function propertyRuns(numRuns: number, timeLimitMs = 100_000) {
  return { numRuns, plugins: [fc.interruptAfterTimeLimit(timeLimitMs, { failOnInterrupt: true })] };
}

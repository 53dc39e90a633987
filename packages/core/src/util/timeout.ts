/**
 * Runs model work Baton started itself under a deadline: past `ms` the work's signal aborts
 * and the promise rejects, so a hung model fails one probe or one summary (both failure-open)
 * instead of hanging the agent's step.
 */
export function withTimeout<T>(
  work: (signal: AbortSignal) => Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} timed out after ${ms} ms`));
    }, ms);
  });
  // User code may throw before returning a promise, or return something that is not one: either
  // way the race settles and the timer is cleared (a timer left behind rejects later, unhandled).
  let running: Promise<T>;
  try {
    running = Promise.resolve(work(controller.signal));
  } catch (error) {
    running = Promise.reject(error);
  }
  return Promise.race([running, timeout]).finally(() => clearTimeout(timer));
}

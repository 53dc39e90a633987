/**
 * For tests that need something from outside the repository (`../shared/corpus`, a
 * PostgreSQL server, Chromium): returns true when they should be skipped. Under `CI=true` a
 * missing need is an error, so CI can never pass by skipping; elsewhere the skip is printed
 * with what is missing, never silent.
 */
export function skipUnless(available: boolean, what: string): boolean {
  if (available) return false;
  if (process.env.CI)
    throw new Error(`[baton] [test] CI=true and ${what} is missing: these tests cannot be skipped`);
  console.warn(`[baton] [test] skipped: ${what} is missing`);
  return true;
}

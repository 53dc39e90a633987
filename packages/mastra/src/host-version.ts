import { createRequire } from 'node:module';
import { BatonConfigError } from '@baton/core';

/**
 * The oldest `@mastra/core` whose agent loop calls every hook BatonProcessor relies on:
 * `processLLMRequest` (the projection; added in 1.33), `processInputStep`,
 * `processOutputStep` and `processAPIError`. On an older Mastra the processor would be
 * registered and never asked to act: prompts go out over budget with no event at all.
 * The consumer test installs exactly this version and runs the README snippet on it.
 */
export const MINIMUM_MASTRA_CORE = '1.33.0';

function atLeast(version: string, minimum: string): boolean {
  const parse = (v: string) => v.split(/[.+-]/, 3).map((part) => Number.parseInt(part, 10) || 0);
  const [a, b] = [parse(version), parse(minimum)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/**
 * Throws `BatonConfigError` when the `@mastra/core` this package resolves is older than
 * {@link MINIMUM_MASTRA_CORE}. `installed` is for tests; by default the version is read from
 * the `@mastra/core/package.json` that an `import '@mastra/core'` here would load.
 */
export function assertMastraHost(installed?: string): void {
  let version = installed;
  if (version === undefined) {
    try {
      const require = createRequire(import.meta.url);
      version = (require('@mastra/core/package.json') as { version: string }).version;
    } catch {
      // A Mastra whose package.json is not exported cannot be checked; its hooks are then
      // the only evidence, and the tests pin the versions that have them.
      return;
    }
  }
  if (!atLeast(version, MINIMUM_MASTRA_CORE)) {
    throw new BatonConfigError(
      `[baton] [mastra] @mastra/core ${version} is installed, but BatonProcessor needs @mastra/core >= ${MINIMUM_MASTRA_CORE}: older versions never call processLLMRequest, so Baton could not keep prompts within budget. Upgrade @mastra/core.`,
      ['@mastra/core'],
    );
  }
}

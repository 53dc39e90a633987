import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A Postgres URL for the Postgres store's tests; empty when none could be started. */
    postgresUrl: string;
  }
}

const script = fileURLToPath(new URL('../../.ci/postgres.sh', import.meta.url));

/**
 * Vitest global setup: the Postgres store's tests need a real server. Uses BATON_PG_URL when
 * set; otherwise starts a throwaway cluster on loopback (installing Debian's postgresql when
 * it is missing and this runs as root) and stops it after the run. Under CI a failure to
 * start is an error, so the Postgres suite can never be skipped silently there.
 */
export default function setup(project: TestProject) {
  if (process.env.BATON_PG_URL) {
    project.provide('postgresUrl', process.env.BATON_PG_URL);
    return;
  }
  let dir = '';
  try {
    const out = execFileSync(
      'bash',
      ['-c', `source "${script}" start >&2 && echo "$BATON_PG_URL $BATON_PG_DIR"`],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 300_000,
      },
    ).trim();
    const [url, started] = out.split(' ');
    dir = started ?? '';
    project.provide('postgresUrl', url ?? '');
  } catch (error) {
    if (process.env.CI)
      throw new Error(`could not start PostgreSQL for the Postgres store's tests: ${error}`);
    console.warn('[postgres] no server could be started: the Postgres store tests are skipped');
    project.provide('postgresUrl', '');
  }
  return () => {
    if (dir) execFileSync('bash', [script, 'stop', dir], { stdio: 'inherit' });
  };
}

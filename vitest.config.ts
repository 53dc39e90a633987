import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through this export condition, so
// tests need no build; what users install resolves to dist (see each package's exports).
const conditions = ['@baton/source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 120_000,
    // Vitest's default on 2 cores is one worker; the consumer and crash tests mostly wait on
    // child processes (npm, tsc, killed children), so a second worker overlaps that waiting.
    maxWorkers: 2,
    hookTimeout: 60_000,
    // Builds what is stale (some tests run the built bin and the packed tarballs), then a
    // throwaway PostgreSQL on loopback for the Postgres store's tests (or BATON_PG_URL).
    globalSetup: ['test/support/build-packages.ts', 'test/support/postgres-server.ts'],
    // .ci/run reads the JSON report for its closing "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/out/vitest.json' }]] : ['default'],
  },
});

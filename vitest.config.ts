import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // A throwaway PostgreSQL on loopback for the Postgres store's tests (or BATON_PG_URL).
    globalSetup: ['test/support/postgres-server.ts'],
    // .ci/run reads the JSON report for its closing "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/out/vitest.json' }]] : ['default'],
  },
});

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './support/import-graph.ts';

const PACKAGES = ['core', 'ai-sdk', 'langgraph', 'mastra', 'postgres', 'cli', 'testing'];

describe('no package has an import cycle', () => {
  for (const name of PACKAGES) {
    it(`${name}: no cycle between its source files, type-only imports included`, () => {
      const src = fileURLToPath(new URL(`../packages/${name}/src/`, import.meta.url));
      const graph = importGraph(src);
      expect(graph.size).toBeGreaterThan(0);
      expect(importCycles(graph)).toEqual([]);
    });
  }
});

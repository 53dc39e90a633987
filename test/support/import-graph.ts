import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * Every relative import of every non-test `.ts` file below `root`, as paths relative to it:
 * `import`, `export ... from`, `import type` and inline `import('...')` types alike (a
 * type-only cycle is still two files that cannot be read, moved or split one without the other).
 */
export function importGraph(root: string): Map<string, string[]> {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((file) => file.replaceAll('\\', '/'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('node_modules/'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = readFileSync(join(root, file), 'utf8');
    const targets = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
      relative(root, normalize(join(root, dirname(file), specifier as string))).replaceAll('\\', '/'),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Each cycle a depth-first walk meets, as `a -> b -> a`; empty when the graph is acyclic. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(node)), node].join(' -> '));
      return;
    }
    state.set(node, 'visiting');
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The folders of src/, lowest first: a file may import from its own folder or from a folder
 * listed before its own, never from one after it. The order follows the data flow of DESIGN.md
 * with the shared contracts low: what many concepts only name (types, the store interface)
 * sits below the code that implements it, so no two folders lean on each other.
 */
const LAYERS = [
  'util', // errors, hashing, timeouts, small caches: no Baton concept
  'transcript', // entries, parts, groups, identifiers
  'ledger', // decisions and their deterministic re-application
  'contracts', // shared types: options' shape, events, prepare's input and output, stage, store, summarizer, host model
  'stores', // the store backends, the archive, the notes backends
  'tokens', // token accounting: tokenizers, memoized counts, calibration
  'pricing', // model catalog, provider cache rules, the cost meter
  'probes', // self-compaction probes and rubrics
  'summarizers', // extractive, bounded, continuation summaries
  'budget', // options resolved into the window, reserve and ratios of one call
  'ladder', // the ladder and its stages
  'controller', // when and how far to compact; the agent's request; the floor
  'agent', // notes, notices, the agent's tools, recall
  'provider', // what provider packages send: prompt shape, cache hints, overflow errors
  'session', // the conductor: Baton, Session.prepare and what a session persists
] as const;

const src = new URL('./', import.meta.url);
const sourceFiles = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .map((f) => f.replaceAll('\\', '/'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

/** Every relative import of every non-test file below src/, type-only and `import()` types included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles) {
    const source = readFileSync(new URL(file, src), 'utf8');
    const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(
      ([, specifier]) => specifier as string,
    );
    graph.set(
      file,
      specifiers.map((specifier) =>
        new URL(specifier, new URL(file, src)).pathname.slice(src.pathname.length),
      ),
    );
  }
  return graph;
}

const folderOf = (file: string): string => (file.includes('/') ? (file.split('/')[0] as string) : '');

/** Each cycle found by a depth-first walk, as `a -> b -> a`. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
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

describe('architecture', () => {
  const graph = importGraph();

  it('src holds only the layer folders and the two entry files', () => {
    const top = readdirSync(src, { withFileTypes: true });
    const files = top.filter((e) => e.isFile()).map((e) => e.name);
    const folders = top.filter((e) => e.isDirectory()).map((e) => e.name);
    expect(files.filter((f) => f !== 'architecture.test.ts').sort()).toEqual(['index.ts', 'internals.ts']);
    expect(folders.sort()).toEqual([...LAYERS].sort());
  });

  it('core has no import cycles between files, type-only imports included', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('folders import only from their own layer or lower ones, so folders have no cycle either', () => {
    const upward: string[] = [];
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      if (from === '') continue; // index.ts and internals.ts re-export every layer
      for (const target of targets) {
        const to = folderOf(target);
        if (to === from) continue;
        if (!folders.has(from)) folders.set(from, new Set());
        folders.get(from)?.add(to);
        const rank = (folder: string) => LAYERS.indexOf(folder as (typeof LAYERS)[number]);
        if (rank(to) < 0 || rank(to) > rank(from)) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
    expect(cyclesOf(new Map([...folders].map(([from, to]) => [from, [...to]])))).toEqual([]);
  });

  it('no file in core is longer than 350 lines, tests included', () => {
    const all = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const long = all
      .map((file) => ({ file, lines: readFileSync(new URL(file, src), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 350)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });

  it('core imports no agent framework', () => {
    // zod through its v4 entry, which zod 3.25+ and 4 both ship (users bring either).
    // The tokenizer and the model registry are data, not frameworks.
    const allowed = /^(\.{1,2}\/|node:|zod\/v4$|gpt-tokenizer\/|@tokenlens\/models\/)/;
    for (const file of sourceFiles) {
      const source = readFileSync(new URL(file, src), 'utf8');
      for (const [, specifier] of source.matchAll(/from '([^']+)'/g))
        expect(specifier, file).toMatch(allowed);
    }
  });
});

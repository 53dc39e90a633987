import { createEntry, type Entry } from '../transcript/transcript.ts';

// Shared by the hostile-input tests (test-only: excluded from the build).

export const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 17 + seed) % 89}`).join(' ');

/** A tool loop with host ids (`id-<seq>`), as an id-keeping host (LangChain, Mastra) sends it. */
export function toolLoop(steps: number, resultWords = 300): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING: audit the repository', 'id-0')];
  for (let s = 0; s < steps; s++) {
    const id = `c${s}`;
    entries.push(
      createEntry(
        entries.length,
        'assistant',
        [{ type: 'tool-call', id, name: 'read_file', input: { path: `f${s}.ts` } }],
        `id-${entries.length}`,
      ),
    );
    entries.push(
      createEntry(
        entries.length,
        'tool',
        [{ type: 'tool-result', callId: id, name: 'read_file', output: words(resultWords, s) }],
        `id-${entries.length}`,
      ),
    );
  }
  entries.push(createEntry(entries.length, 'assistant', 'All files read.', `id-${entries.length}`));
  return entries;
}

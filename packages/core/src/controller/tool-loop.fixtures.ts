import { createEntry, type Entry } from '../transcript/transcript.ts';

/** `n` words from a small vocabulary, the same for the same seed. */
export const filler = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `word${(i * 31 + seed) % 97}`).join(' ');

/** One agent step: a call reading `file<s>.ts` and its result of `words` words. */
export function readFileStep(entries: Entry[], s: number, words: number): void {
  const id = `c${s}`;
  entries.push(
    createEntry(entries.length, 'assistant', [
      { type: 'tool-call', id, name: 'read_file', input: { path: `file${s}.ts` } },
    ]),
    createEntry(entries.length + 1, 'tool', [
      { type: 'tool-result', callId: id, name: 'read_file', output: `FILE${s} ${filler(words, s)}` },
    ]),
  );
}

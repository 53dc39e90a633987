import { describe, expect, it } from 'vitest';
import type { StageContext } from '../../contracts/stage.ts';
import { buildGroups } from '../../transcript/groups.ts';
import { createEntry, type Entry } from '../../transcript/transcript.ts';
import { foldToolResults } from './fold-tool-results.ts';
import { supersededResults } from './superseded.ts';

const page = (label: string) =>
  `${label}\n${Array.from({ length: 300 }, (_, i) => `${label}_${i}`).join(' ')}`;

/** An agent loop: each step one call and its result, then a closing answer (all consumed). */
function loop(steps: Array<{ name: string; input: unknown; output: string; isError?: boolean }>): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', 'OPENING: fix the failing test')];
  steps.forEach((step, i) => {
    const id = `c${i}`;
    entries.push(
      createEntry(entries.length, 'assistant', [
        { type: 'tool-call', id, name: step.name, input: step.input },
      ]),
      createEntry(entries.length + 1, 'tool', [
        {
          type: 'tool-result',
          callId: id,
          name: step.name,
          output: step.output,
          isError: step.isError ?? false,
        },
      ]),
    );
  });
  entries.push(createEntry(entries.length, 'assistant', 'Done.'));
  return entries;
}

const keyOfStep = (entries: readonly Entry[], step: number) => (entries[2 + 2 * step] as Entry).key;

describe('superseded results', () => {
  it('finds a file read again, a command re-run, a repeated output and a failure later resolved', () => {
    const entries = loop([
      { name: 'read_file', input: { path: 'a.py' }, output: page('a v1') }, // 0: read again at 3
      { name: 'bash', input: { cmd: 'pytest' }, output: page('2 failed') }, // 1: re-run at 5
      { name: 'edit', input: { path: 'a.py', n: 1 }, output: 'no match', isError: true }, // 2: resolved at 4
      { name: 'read_file', input: { path: 'a.py' }, output: page('a v2') },
      { name: 'edit', input: { path: 'a.py', n: 2 }, output: 'edited' },
      { name: 'bash', input: { cmd: 'pytest' }, output: page('all passed') }, // 5: its output repeated at 6
      { name: 'read_file', input: { path: 'b.py' }, output: page('all passed') }, // repeats 5's output verbatim
      { name: 'read_file', input: { path: 'c.py' }, output: page('c') },
      { name: 'bash', input: { cmd: 'make' }, output: page('make failed'), isError: true }, // 8: not resolved by...
      { name: 'bash', input: { cmd: 'ls' }, output: page('listing') }, // ...another command
    ]);
    const stale = supersededResults(buildGroups(entries, { pinnedTools: new Set() }));
    expect([...stale].map((e) => e.key).sort()).toEqual(
      [keyOfStep(entries, 0), keyOfStep(entries, 1), keyOfStep(entries, 2), keyOfStep(entries, 5)].sort(),
    );
  });

  it('fold-tool-results folds stale results before older results nothing replaced', async () => {
    const entries = loop([
      { name: 'read_file', input: { path: 'unique.py' }, output: page('unique') }, // oldest, never replaced
      { name: 'read_file', input: { path: 'a.py' }, output: page('a v1') }, // replaced by step 2
      { name: 'read_file', input: { path: 'a.py' }, output: page('a v2') },
      { name: 'grep', input: { q: 'x' }, output: page('x') },
      { name: 'grep', input: { q: 'y' }, output: page('y') },
      { name: 'grep', input: { q: 'z' }, output: page('z') },
    ]);
    const count = (entry: Entry) => JSON.stringify(entry.parts).length / 4;
    const tokens = entries.reduce((sum, e) => sum + count(e), 0);
    const ctx = {
      entries,
      groups: buildGroups(entries, { pinnedTools: new Set() }),
      tokens,
      target: tokens - 100, // one fold is enough
      budget: tokens,
      truncateLimit: tokens,
      instruction: undefined,
      options: { keep: 3 },
      count,
      summarize: async () => '',
      emit: () => {},
    } as unknown as StageContext;
    const { decisions } = await foldToolResults()(ctx);
    expect(decisions.map((d) => (d as { key: string }).key)).toEqual([keyOfStep(entries, 1)]);
  });
});

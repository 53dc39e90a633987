import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { cacheBreakpoints, stablePrefixEnd } from './cache-breakpoints.ts';

function loop(steps: number, system?: string): Entry[] {
  const entries: Entry[] = system ? [createEntry(0, 'system', system)] : [];
  entries.push(createEntry(entries.length, 'user', 'Fix the failing test.'));
  for (let step = 0; step < steps; step++) {
    const id = `c${step}`;
    entries.push(
      createEntry(entries.length, 'assistant', [{ type: 'tool-call', id, name: 'read', input: { step } }]),
    );
    entries.push(
      createEntry(entries.length, 'tool', [
        { type: 'tool-result', callId: id, name: 'read', output: `r${step}` },
      ]),
    );
  }
  return entries;
}

describe('cacheBreakpoints', () => {
  it('marks the end of the stable prefix and the newest message, in request order', () => {
    const entries = loop(3);
    expect(cacheBreakpoints({ entries, system: 'rules\n\nnotes', tools: 2 })).toEqual([
      { at: 'system' },
      { at: 'entry', index: entries.length - 1 },
    ]);
  });

  it('ends the prefix at the last leading system entry when the system text is the host’s (AI SDK view mode)', () => {
    const entries = loop(2, 'You are terse.');
    expect(stablePrefixEnd({ entries, system: '', tools: 1 })).toEqual({ at: 'entry', index: 0 });
    expect(cacheBreakpoints({ entries, system: '', tools: 1 })).toEqual([
      { at: 'entry', index: 0 },
      { at: 'entry', index: entries.length - 1 },
    ]);
    // Tools alone make the prefix; nothing at all makes none.
    const bare = loop(1);
    expect(cacheBreakpoints({ entries: bare, system: '', tools: 3 })[0]).toEqual({ at: 'tools' });
    expect(cacheBreakpoints({ entries: bare, system: '', tools: 0 })).toEqual([
      { at: 'entry', index: bare.length - 1 },
    ]);
  });

  it('counts the host’s own against the cap: 3 of theirs leave 1 of ours, the conversation’s', () => {
    const entries = loop(3);
    const elsewhere = { at: 'elsewhere' } as const;
    const input = { entries, system: 'rules', tools: 1 };
    expect(cacheBreakpoints({ ...input, host: [elsewhere, elsewhere, elsewhere] })).toEqual([
      { at: 'entry', index: entries.length - 1 },
    ]);
    expect(cacheBreakpoints({ ...input, host: [elsewhere, elsewhere, elsewhere, elsewhere] })).toEqual([]);
    // A position the host marked already is not marked twice, and leaves room for the other.
    expect(cacheBreakpoints({ ...input, host: [{ at: 'system' }, elsewhere, elsewhere] })).toEqual([
      { at: 'entry', index: entries.length - 1 },
    ]);
    expect(cacheBreakpoints({ ...input, cap: 1 })).toHaveLength(1);
  });

  it('bridges a batch of parallel tool calls of 20 blocks or more: a third breakpoint where the previous request ended', () => {
    const batch = (n: number) => {
      const entries = loop(2);
      const calls = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, name: 'read', input: { i } }));
      entries.push(
        createEntry(
          entries.length,
          'assistant',
          calls.map((c) => ({ type: 'tool-call' as const, ...c })),
        ),
        createEntry(
          entries.length + 1,
          'tool',
          calls.map((c) => ({ type: 'tool-result' as const, callId: c.id, name: c.name, output: 'ok' })),
        ),
      );
      return entries;
    };
    // 10 calls and their 10 results: 20 blocks since the previous request's last message.
    const wide = batch(10);
    expect(cacheBreakpoints({ entries: wide, system: 's', tools: 0 })).toEqual([
      { at: 'system' },
      { at: 'entry', index: wide.length - 3 },
      { at: 'entry', index: wide.length - 1 },
    ]);
    // 9 and 9: the provider's 20-block look-back reaches it; no bridge.
    const narrow = batch(9);
    expect(cacheBreakpoints({ entries: narrow, system: 's', tools: 0 })).toHaveLength(2);
    // The bridge gives way first when room is short.
    expect(cacheBreakpoints({ entries: wide, system: 's', tools: 0, cap: 2 })).toEqual([
      { at: 'system' },
      { at: 'entry', index: wide.length - 1 },
    ]);
  });

  it('never marks a thinking block: the newest message ending in one gives way to the one before', () => {
    const entries = [
      createEntry(0, 'user', 'Think.'),
      createEntry(1, 'assistant', [{ type: 'opaque', kind: 'reasoning', value: {}, text: 'hmm' }]),
    ];
    expect(cacheBreakpoints({ entries, system: 's', tools: 0 })).toEqual([
      { at: 'system' },
      { at: 'entry', index: 0 },
    ]);
  });

  it('is the same for every call of a loop between compactions, the prefix’s breakpoint included', async () => {
    const baton = createBaton({ contextWindow: 200_000 });
    const session = baton.session('stable');
    const history = loop(30, 'You are terse.');
    const seen: string[] = [];
    for (let end = 3; end <= history.length; end += 2) {
      const prepared = await session.prepare({ entries: history.slice(0, end) });
      expect(prepared.outcome).toBe('ok');
      const breakpoints = cacheBreakpoints({ entries: prepared.entries, system: prepared.system, tools: 0 });
      // The prefix's breakpoint never moves; the conversation's is on the last message sent.
      expect(breakpoints).toEqual([
        { at: 'entry', index: 0 },
        { at: 'entry', index: prepared.entries.length - 1 },
      ]);
      seen.push(JSON.stringify(prepared.entries.slice(0, 1)));
    }
    expect(new Set(seen).size).toBe(1);
  });
});

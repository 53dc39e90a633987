import { describe, expect, it } from 'vitest';
import { recallRangeHint, recallRefHint } from '../ladder/stages/spans.ts';
import { createBaton } from '../session/baton.ts';
import { entryIdentifiers, identifierIndex, identifiersIn } from './identifiers.ts';
import { createEntry } from './transcript.ts';

describe('identifiersIn', () => {
  it('finds paths, file names, symbols, codes, versions, ids and quoted strings', () => {
    expect(
      identifiersIn(
        'Reading src/app/page.tsx and go.mod; E1101 in typecheck.py at line 1234. get_user_by_id calls ' +
          'UserRepository.findById via fetchUser; commit 3f2a9c1d, version 1.23.4, run `make test`, ' +
          'uuid 123e4567-e89b-12d3-a456-426614174000, key "max retries".',
      ).sort(),
    ).toEqual(
      [
        'src/app/page.tsx',
        'go.mod',
        'E1101',
        'typecheck.py',
        '1234',
        'get_user_by_id',
        'UserRepository.findById',
        'fetchUser',
        '3f2a9c1d',
        '1.23.4',
        'make test',
        '123e4567-e89b-12d3-a456-426614174000',
        'max retries',
      ].sort(),
    );
  });

  it('takes plain prose, short numbers and abbreviations for no identifier', () => {
    expect(identifiersIn('The file is fine, e.g. I will run it 2 or 3 times. Hello World.')).toEqual([]);
  });

  it('lists a name inside a longer one only once, as the longer one', () => {
    expect(identifiersIn('see ./pkg/go.mod dated 2025-07-24')).toEqual(['./pkg/go.mod', '2025-07-24']);
  });
});

describe('entryIdentifiers', () => {
  it("reads tool-call inputs' string values, not their JSON keys and quotes", () => {
    const call = createEntry(1, 'assistant', [
      { type: 'tool-call', id: 'c1', name: 'read', input: '{"path": "src/index.ts", "limit": 2000}' },
    ]);
    expect(entryIdentifiers(call).sort()).toEqual(['2000', 'src/index.ts']);
  });

  it('reads tool results and texts', () => {
    const result = createEntry(2, 'tool', [
      { type: 'tool-result', callId: 'c1', name: 'read', output: { error: 'TS2322 at src/a.ts' } },
    ]);
    expect(entryIdentifiers(result).sort()).toEqual(['TS2322', 'src/a.ts']);
  });
});

describe('identifierIndex', () => {
  it('lists the names a text shows beyond what is already shown, within a character bound', () => {
    const text = 'total 3\nsrc/auth/token.go: validateToken returns ErrExpired\nsrc/auth/session.go';
    expect(identifierIndex(text, 'total 3')).toBe(
      'src/auth/token.go, validateToken, ErrExpired, src/auth/session.go',
    );
    expect(identifierIndex(text, 'src/auth/token.go')).toBe('validateToken, ErrExpired, src/auth/session.go');
    expect(identifierIndex(text, '', 40)).toBe('src/auth/token.go, validateToken');
  });

  it("lists no names from Baton's own recall hints: their refs are message keys and seqs", () => {
    // What a summary of placeholders reads: each names its result by a key the agent never types.
    const text = [
      `[baton] Folded grep result. Names in it: src/auth/token.go. Verbatim: ${recallRefHint('3f2b8c1e-9a4d-4e7f-b6a1-0c2d3e4f5a6b')}`,
      `[baton] Folded read result. Verbatim: ${recallRefHint('call_Xy7_result_r2')}`,
      `[baton] 40 messages summarized: ${recallRangeHint(1204, 1377)}; ${recallRefHint('seq-88-9fa0c3d2e1b4a5c6')}`,
      'validateToken returns ErrExpired',
    ].join('\n');
    expect(identifierIndex(text)).toBe('src/auth/token.go, validateToken, ErrExpired');
  });
});

describe('names survive eviction', () => {
  it('a folded tool result keeps the names in it, so the need to recall it is visible', async () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} of the listing`).join('\n');
    const entries = [createEntry(0, 'user', 'Find where tokens expire.')];
    for (let step = 0; step < 10; step++) {
      const id = `c${step}`;
      entries.push(
        createEntry(entries.length, 'assistant', [
          { type: 'tool-call', id, name: 'grep', input: { q: `q${step}` } },
        ]),
        createEntry(entries.length + 1, 'tool', [
          {
            type: 'tool-result',
            callId: id,
            name: 'grep',
            output: `${step} matches\n${filler(150)}\npkg/auth/token_${step}.go: validateToken${step} returns ErrExpired${step}`,
          },
        ]),
      );
    }
    const session = createBaton({ contextWindow: 16_000, targetAt: 0.5, minCompactionGain: 0.1 }).session(
      'names',
    );
    const prepared = await session.prepare({ entries });
    const folded = prepared.entries.filter(
      (e) => e.role === 'tool' && JSON.stringify(e.parts).includes('[baton] Folded grep result'),
    );
    expect(folded.length).toBeGreaterThan(0);
    for (const entry of folded) {
      const text = JSON.stringify(entry.parts);
      const step = /matches/.test(text) ? text.match(/First line: \\"(\d+) matches/)?.[1] : undefined;
      expect(step).toBeDefined();
      expect(text).toContain(
        `Names in it: pkg/auth/token_${step}.go, validateToken${step}, ErrExpired${step}`,
      );
    }
  });
});

import { describe, expect, it } from 'vitest';
import { entryIdentifiers, identifiersIn } from './identifiers.ts';
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

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromStoreLabel, storeLabel } from './store-label.ts';

describe('storeLabel', () => {
  it('keeps letters, digits and - as they are, and escapes everything else with ~', () => {
    expect(storeLabel('thread-1')).toBe('thread-1');
    expect(storeLabel('3f2a9c1e-0b7d-4c2e-9a51-6d0f1b2c3d4e')).toBe('3f2a9c1e-0b7d-4c2e-9a51-6d0f1b2c3d4e');
    expect(storeLabel('user_42')).toBe('user~5F42');
    expect(storeLabel('a.b')).toBe('a~2Eb');
    expect(storeLabel('\u00C4rger')).toBe('~C3~84rger');
    expect(storeLabel('thread-1|tools:call_abc')).toBe('thread-1~7Ctools~3Acall~5Fabc');
    expect(storeLabel('~')).toBe('~7E');
    expect(storeLabel('')).toBe('~');
    expect(storeLabel('nul\u0000')).toBe('nul~00');
  });

  it('makes only labels LangGraph PostgresStore accepts (no . % _ \\ :)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(storeLabel(text)).toMatch(/^[A-Za-z0-9~-]+$/);
      }),
    );
  });

  it('is one-to-one: every label decodes to the text it came from', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(fromStoreLabel(storeLabel(text))).toBe(text);
      }),
    );
    for (const text of ['', '~', '~7E', '%41', '~41', 'a~b'])
      expect(fromStoreLabel(storeLabel(text))).toBe(text);
  });

  it('refuses labels it cannot have made', () => {
    for (const label of ['a~5', 'a~zz', 'a~41', 'a_b', 'a~FF']) {
      expect(() => fromStoreLabel(label), label).toThrow(TypeError);
    }
  });
});

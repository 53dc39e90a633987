import { describe, expect, it } from 'vitest';
import { filler } from './filler.ts';

describe('filler', () => {
  it('is deterministic per seed and about the size asked for', () => {
    expect(filler(500, 3)).toBe(filler(500, 3));
    expect(filler(500, 3)).not.toBe(filler(500, 4));
    expect(filler(500, 3).length).toBeGreaterThanOrEqual(490);
    expect(filler(500, 3).length).toBeLessThan(520);
  });

  it('refuses a seed that is not a non-negative integer, naming it', () => {
    for (const seed of [1.5, -1, Number.NaN]) expect(() => filler(100, seed)).toThrow(RangeError);
    expect(() => filler(100, 1.5)).toThrow('seed must be a non-negative integer, got 1.5');
  });
});

/**
 * Deterministic filler text of about `chars` characters: the same `seed` (a non-negative
 * integer) always gives the same text, a different seed different text.
 *
 * @example
 * filler(2_400, 7); // 'delta log ok 200 path ...', about 2,400 characters
 */
export function filler(chars: number, seed: number): string {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`[baton] [testing] filler: seed must be a non-negative integer, got ${seed}`);
  }
  const words = [
    'alpha',
    'beta',
    'gamma',
    'delta',
    'omega',
    'log',
    'line',
    'value',
    'error',
    'status',
    'ok',
    '200',
    'path',
  ];
  const out: string[] = [];
  let length = 0;
  let state = seed;
  while (length < chars) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const word = words[state % words.length]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

/** Deterministic filler text of about `chars` characters. */
export function filler(chars: number, seed: number): string {
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

import { describe, expect, it } from 'vitest';
import { foldedResultOrigin, foldedResultText } from './folded-result.ts';

const fold = (text: string, extra: { isError?: boolean; media?: number } = {}) =>
  foldedResultText({
    name: 'bash',
    text,
    isError: extra.isError ?? false,
    media: extra.media ?? 0,
    recallHint: 'recall({ "ref": "call_7" })',
  });

describe('a folded result line', () => {
  it('is written as fold-tool-results has always written it', () => {
    expect(
      fold('FAIL src/date.test.ts\nexpected parseDate to keep TZ_OFFSET', { isError: true, media: 2 }),
    ).toBe(
      '[baton] Folded bash result (58 chars, 2 images or files, error). First line: "FAIL src/date.test.ts". Names in it: parseDate, TZ_OFFSET. Verbatim: recall({ "ref": "call_7" })',
    );
    expect(foldedResultOrigin(fold('FAIL src/date.test.ts\nexpected parseDate to keep TZ_OFFSET'))).toEqual({
      chars: 58,
      firstLine: 'FAIL src/date.test.ts',
    });
  });

  it.each([
    ['a plain first line', 'total 12\ndrwxr-xr-x src'],
    ['quotes and the line format inside the first line', 'say "hi". Names in it: x". Verbatim: y\nrest'],
    ['a quoted name holding a quote and a dot', 'run `x = "a".b` now\nrest'],
    ['a first line past 100 characters', `${'0123456789'.repeat(15)}\nrest`],
    ['an empty result', ''],
  ])('gives back the size and first line of %s', (_, text) => {
    const line = fold(text, { isError: true, media: 1 });
    const origin = foldedResultOrigin(line);
    expect(origin?.chars).toBe(text.length);
    expect(line).toContain(`First line: "${origin?.firstLine}".`);
    expect(text.split('\n')[0]!.startsWith(origin!.firstLine.replace(/…$/, ''))).toBe(true);
  });

  it('reads nothing from any other text', () => {
    expect(foldedResultOrigin('total 12')).toBeUndefined();
    expect(foldedResultOrigin('[baton] Folded bash result (12 chars). First line: "x".')).toBeUndefined();
  });
});

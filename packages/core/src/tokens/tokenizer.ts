import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { BatonConfigError } from '../util/errors.ts';

/** Counts BPE tokens of a text. Implement it to plug in any tokenizer. */
export interface Tokenizer {
  readonly name: string;
  count(text: string): number;
}

export type EncodingName = 'o200k_base' | 'cl100k_base';

// Special-token text (`<|endoftext|>`) in user content must count as ordinary text, not throw.
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Longest run without whitespace handed to the BPE in one piece. BPE merging is quadratic in
 * the length of a pre-token, and minified code, base64 or hex dumps form one pre-token per
 * run: cutting them costs at most a token per cut and keeps a 1 MB run linear.
 */
const MAX_RUN = 256;
const LONG_RUN = /\S{257,}/g;
/**
 * Characters of one run counted exactly. Estimating longer runs from samples undercounted a
 * crafted run 8x (dense text between the sample points: 131k tokens sent as 16k); counting
 * is linear (about 0.4 s for 1 MB of base64, once per content, memoized and persisted), and
 * beyond this each further UTF-8 byte counts as a token, a bound no byte-level BPE exceeds.
 */
const EXACT_RUN_CHARS = 1 << 20;

function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair: one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function countRun(run: string, count: (piece: string) => number): number {
  const exact = run.length <= EXACT_RUN_CHARS ? run : run.slice(0, EXACT_RUN_CHARS);
  let total = 0;
  for (let i = 0; i < exact.length; i += MAX_RUN) total += count(exact.slice(i, i + MAX_RUN));
  return run.length > exact.length ? total + utf8Bytes(run.slice(exact.length)) : total;
}

function splitLongRuns(text: string, count: (piece: string) => number): number {
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return count(text);
  LONG_RUN.lastIndex = 0;
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const start = match.index;
    if (start > last) total += count(text.slice(last, start));
    const run = match[0];
    total += countRun(run, count);
    last = start + run.length;
  }
  if (last < text.length) total += count(text.slice(last));
  return total;
}

/**
 * The default tokenizer: gpt-tokenizer's pure-JS BPE (o200k_base unless told otherwise).
 *
 * @example
 * const tokenizer = gptTokenizer('cl100k_base');
 * tokenizer.count('hello world'); // 2
 */
export function gptTokenizer(encoding: EncodingName = 'o200k_base'): Tokenizer {
  const raw = encoding === 'cl100k_base' ? countCl100k : countO200k;
  const count = (piece: string) => raw(piece, ORDINARY_TEXT);
  return {
    name: `gpt-tokenizer/${encoding}`,
    count: (text) => (text.length === 0 ? 0 : splitLongRuns(text, count)),
  };
}

interface TiktokenModule {
  get_encoding(name: string): {
    encode(text: string, allowedSpecial?: unknown, disallowedSpecial?: unknown): Uint32Array;
  };
}

/**
 * tiktoken's WASM build as the counting engine (an optional peer dependency, loaded on demand).
 *
 * @example
 * const baton = createBaton({ model: 'gpt-4o', tokenizer: await tiktokenTokenizer('o200k_base') });
 */
export async function tiktokenTokenizer(encoding: EncodingName = 'o200k_base'): Promise<Tokenizer> {
  const specifier = 'tiktoken';
  const mod = (await import(specifier)) as TiktokenModule;
  const enc = mod.get_encoding(encoding);
  const count = (piece: string) => enc.encode(piece, 'all').length;
  return {
    name: `tiktoken/${encoding}`,
    count: (text) => (text.length === 0 ? 0 : splitLongRuns(text, count)),
  };
}

/**
 * A user-supplied tokenizer whose answers are checked: a count that is not a finite number of
 * at least 0 (NaN, negative, a string) would let any history through the budget, so it is a
 * `BatonConfigError` (asked once at creation, so a broken tokenizer fails there). A fractional
 * count (an estimate such as `text.length / 4`) is rounded up.
 */
export function checkedTokenizer(tokenizer: Tokenizer): Tokenizer {
  const count = (text: string): number => {
    const tokens: unknown = tokenizer.count(text);
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0)
      throw new BatonConfigError(
        `[baton] [tokenizer] ${tokenizer.name}.count returned ${typeof tokens === 'number' ? tokens : typeof tokens} for a ${text.length}-character text: expected a finite token count of at least 0`,
        ['tokenizer'],
      );
    return Math.ceil(tokens);
  };
  count('hello world');
  return { name: tokenizer.name, count };
}

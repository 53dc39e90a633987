import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createEntry } from '../transcript/transcript.ts';
import { TokenCounter } from './token-counter.ts';
import { gptTokenizer, tiktokenTokenizer } from './tokenizer.ts';

/** The count of a run cut into 256-character pieces: what splitting gives exactly. */
function piecewise(run: string): number {
  let total = 0;
  for (let i = 0; i < run.length; i += 256)
    total += countTokens(run.slice(i, i + 256), { disallowedSpecial: new Set() });
  return total;
}

describe('gptTokenizer', () => {
  const tokenizer = gptTokenizer();

  it('counts exactly what gpt-tokenizer counts on ordinary text', () => {
    const text = 'The quick brown fox jumps over the lazy dog.\nfunction f(x) { return x * 2; }';
    expect(tokenizer.count(text)).toBe(countTokens(text));
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    expect(() => tokenizer.count('before <|endoftext|> after <|im_start|>')).not.toThrow();
    expect(tokenizer.count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('splits long runs without whitespace, staying within 1% of the unsplit count', () => {
    const run = Array.from({ length: 20_000 }, (_, i) => 'abcdefghij0123456789+/'[(i * 7919) % 22]).join('');
    const split = tokenizer.count(run);
    const whole = countTokens(run, { disallowedSpecial: new Set() });
    expect(Math.abs(split - whole) / whole).toBeLessThan(0.01);
  });

  it('counts a 1 MB unbroken run (BPE would be quadratic on it) exactly, split in pieces', () => {
    expect(tokenizer.count('a'.repeat(1_000_000))).toBe(125_000);
    let state = 7;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const blob = Array.from({ length: 200_000 }, () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return alphabet[state % 64];
    }).join('');
    expect(tokenizer.count(blob)).toBe(piecewise(blob));
  });

  it('never undercounts a run crafted against sampling: dense text between sparse stretches', () => {
    // Sparse stretches (8 characters a token) where samples used to land, dense ones (one
    // token a character) between them: the sampled estimate was 8x low.
    const stride = Math.floor(1_000_000 / 128);
    const crafted = Array.from({ length: 128 }, () => 'a'.repeat(256) + '\u20ac'.repeat(stride - 256)).join(
      '',
    );
    expect(tokenizer.count(crafted)).toBe(piecewise(crafted));
    // Past a mebibyte of one run, each further UTF-8 byte counts as a token: an upper bound.
    const huge = `${crafted}${'\u20ac'.repeat(600_000)}`;
    expect(tokenizer.count(huge)).toBeGreaterThanOrEqual(piecewise(huge));
  });

  it('offers cl100k_base for older OpenAI models', () => {
    expect(gptTokenizer('cl100k_base').name).toBe('gpt-tokenizer/cl100k_base');
  });

  it('tiktoken engine counts the same as gpt-tokenizer', async () => {
    const tiktoken = await tiktokenTokenizer('o200k_base');
    const text = 'Grid storage: sodium-ion vs LFP, 160 Wh/kg. {"json": [1, 2, 3]}';
    expect(tiktoken.count(text)).toBe(tokenizer.count(text));
  });
});

describe('TokenCounter', () => {
  it('counts framing, tool calls and results, and memoizes per entry', () => {
    let calls = 0;
    const counting = {
      name: 'spy',
      count: (text: string) => {
        calls++;
        return text.length;
      },
    };
    const counter = new TokenCounter(counting, 100);
    const entry = createEntry(0, 'assistant', [
      { type: 'text', text: 'abcd' },
      { type: 'tool-call', id: '1', name: 'grep', input: { q: 'x' } },
      { type: 'opaque', kind: 'image', value: {} },
    ]);
    const first = counter.raw(entry);
    expect(first).toBe(4 + 4 + (3 + 4 + 9) + 100);
    const before = calls;
    expect(counter.raw(entry)).toBe(first);
    expect(counter.raw(structuredClone(entry))).toBe(first);
    expect(calls).toBe(before);
  });

  it('gives each calibration a view over the same exact counts', () => {
    let calls = 0;
    const counting = {
      name: 'counting',
      count: (text: string) => {
        calls++;
        return text.length;
      },
    };
    const counter = new TokenCounter(counting, 0);
    const entry = createEntry(0, 'user', 'x'.repeat(100));
    const exact = counter.raw(entry);
    const chat = counter.withRatio(1.3);
    expect(chat.count(entry)).toBe(Math.ceil(exact * 1.3));
    expect(chat.scale(100)).toBe(130);
    expect(counter.count(entry)).toBe(exact); // the shared counter keeps its own ratio (1)
    expect(calls).toBe(1); // counted once, for both
    expect(counter.withRatio(1)).toBe(counter);
  });
});

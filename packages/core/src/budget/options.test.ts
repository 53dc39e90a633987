import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lookupModel } from '../pricing/model-catalog.ts';
import { selfCompactSchema } from '../probes/self-compaction.ts';
import { createBaton } from '../session/baton.ts';
import { BatonConfigError } from '../util/errors.ts';
import { type BatonOptions, optionsSchema, resolveOptions } from './options.ts';

const fails = (options: unknown) => {
  try {
    createBaton(options as BatonOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(BatonConfigError);
    return (error as BatonConfigError).message;
  }
  throw new Error('expected BatonConfigError');
};

describe('createBaton options', () => {
  it('applies the documented defaults', () => {
    const { options } = createBaton({ model: 'gpt-4o' });
    expect(options).toMatchObject({
      warnAt: 0.64,
      compactAt: 0.8,
      targetAt: 0.3,
      minCompactionGain: 0.3,
      truncateAt: 0.9,
      keep: 3,
      contextWindow: 128_000,
    });
    expect(options.inputBudget).toBe(128_000 - options.reserveOutput);
  });

  it('names the field and the accepted values', () => {
    // A percentage where a share is meant: what it accepts, and what it was given.
    expect(fails({ model: 'gpt-4o', compactAt: 80 })).toBe(
      '[baton] [options] compactAt: expected a share of the input budget in (0, 1], e.g. 0.8 for 80%, received 80',
    );
    expect(fails({ model: 'gpt-4o', minCompactionGain: 1 })).toMatch(
      /minCompactionGain: .*\[0, 1\).*received 1$/,
    );
    // An unset Number(process.env.X) reads as what it is; a string passed for a store is never echoed.
    expect(fails({ model: 'gpt-4o', compactAt: Number.NaN })).toMatch(/compactAt: .*received NaN$/);
    expect(fails({ model: 'gpt-4o', compactAt: '0.8' })).toMatch(/compactAt: .*received "0\.8"$/);
    const secret = fails({ model: 'gpt-4o', store: 'postgres://admin:s3cret@db:5432/baton' });
    expect(secret).toMatch(/store: expected a Store/);
    expect(secret).not.toContain('s3cret');
    expect(fails({ model: 'gpt-4o', tokenizer: 'p50k' })).toMatch(/tokenizer/);
    expect(fails({ model: 'gpt-4o', keep: -1 })).toMatch(/keep/);
    expect(fails({ model: 'gpt-4o', keepRecentGroups: 2.5 })).toBe(
      '[baton] [options] keepRecentGroups: expected a whole number, received 2.5',
    );
    expect(fails({ model: 'gpt-4o', compactat: 0.7 })).toMatch(
      /unknown option.*'compactat'.*accepted: .*compactAt/,
    );
    expect(fails({ model: 'gpt-4o', summarizer: 'yes' })).toMatch(/summarizer: expected an async function/);
    expect(fails({ model: 'gpt-4o', store: {} })).toMatch(/store: expected a Store/);
  });

  it('checks that thresholds are ordered', () => {
    expect(fails({ model: 'gpt-4o', targetAt: 0.9 })).toMatch(/targetAt: must be below compactAt/);
    expect(fails({ model: 'gpt-4o', truncateAt: 0.7 })).toMatch(/truncateAt: must be at or above compactAt/);
    expect(fails({ model: 'gpt-4o', warnAt: 0.85 })).toMatch(/warnAt: must be at or below compactAt/);
  });

  it('takes the window from the catalog or as given, or leaves it to each call', () => {
    // No model, no window: each call's model gives it (call-budget.test.ts).
    expect(createBaton({}).options.contextWindow).toBeUndefined();
    expect(fails({ model: 'my-local-llm' })).toMatch(/model 'my-local-llm' is not in the catalog/);
    expect(createBaton({ model: 'my-local-llm', contextWindow: 32_768 }).options.contextWindow).toBe(32_768);
    expect(
      createBaton({
        model: 'my-local-llm',
        catalog: { 'my-local': { contextWindow: 8_192, encoding: 'cl100k_base' } },
      }).options.contextWindow,
    ).toBe(8_192);
    expect(fails({ contextWindow: 1000, reserveOutput: 1000 })).toMatch(/reserveOutput/);
  });

  it('rejects non-objects', () => {
    expect(fails(undefined)).toMatch(/expected an options object/);
  });
});

describe('model catalog', () => {
  it('finds exact ids, dated ids, family names and provider-prefixed names in the registry', () => {
    expect(lookupModel('anthropic/claude-sonnet-4-20250514')?.contextWindow).toBe(200_000);
    expect(lookupModel('gpt-4o-mini')?.contextWindow).toBe(128_000);
    expect(lookupModel('gpt-4o-2024-08-06')).toBe(lookupModel('gpt-4o'));
    expect(lookupModel('gpt-4-turbo-2024-04-09')?.encoding).toBe('cl100k_base');
    expect(lookupModel('gpt-4.1-mini')?.contextWindow).toBe(1_047_576);
    expect(lookupModel('gpt-5')?.encoding).toBe('o200k_base');
    expect(lookupModel('deepseek/deepseek-chat')?.contextWindow).toBe(128_000);
    expect(lookupModel('gemini-2.5-pro')?.contextWindow).toBe(1_048_576);
    expect(lookupModel('mistral-large-latest')?.contextWindow).toBe(131_072);
    // A family name takes its dated snapshot, not a newer family that shares the prefix.
    expect(lookupModel('claude-sonnet-4')).toBe(lookupModel('claude-sonnet-4-20250514'));
    expect(lookupModel('codestral')).toBe(lookupModel('codestral-latest'));
    expect(lookupModel('qwen3-coder-480b')?.contextWindow).toBe(262_144);
    expect(lookupModel('unknown')).toBeUndefined();
  });

  it('reads the dotted versions of AI Gateway and OpenRouter ids as the provider ids they name', () => {
    // `anthropic/claude-sonnet-4.5` is how the AI Gateway (a plain model string in the AI SDK)
    // and OpenRouter name Anthropic's `claude-sonnet-4-5`: without a window option, an unknown id
    // would refuse every call.
    expect(lookupModel('anthropic/claude-sonnet-4.5')).toBe(lookupModel('claude-sonnet-4-5'));
    expect(lookupModel('anthropic/claude-haiku-4.5')).toBe(lookupModel('claude-haiku-4-5'));
    expect(lookupModel('anthropic/claude-opus-4.6')?.contextWindow).toBe(1_000_000);
    expect(lookupModel('anthropic/claude-3.7-sonnet')?.contextWindow).toBe(200_000);
    // Ids with a dot of their own match as they are.
    expect(lookupModel('openai/gpt-4.1')?.contextWindow).toBe(1_047_576);
    expect(lookupModel('google/gemini-2.5-flash-lite')?.pricing?.input).toBe(0.1);
    expect(createBaton({ model: 'anthropic/claude-sonnet-4.5' }).options.contextWindow).toBe(200_000);
  });

  it('carries prices with cache read and write, and no discount where the registry lists none', () => {
    expect(lookupModel('claude-sonnet-4')?.pricing).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    const gpt5 = lookupModel('openai/gpt-5')?.pricing;
    expect(gpt5?.cacheRead).toBeLessThan(gpt5!.input / 5);
    expect(gpt5?.cacheWrite).toBeUndefined();
    // The registry lists gpt-3.5-turbo's cached read above its input price: taken as no discount.
    expect(lookupModel('gpt-3.5-turbo')?.pricing?.cacheRead).toBeUndefined();
    expect(lookupModel('gpt-oss-120b')?.pricing).toBeUndefined();
  });

  it('resolves the pricing of the model, the catalog option overriding the registry', () => {
    expect(createBaton({ model: 'claude-sonnet-4-20250514' }).options.pricing?.cacheWrite).toBe(3.75);
    expect(createBaton({ contextWindow: 10_000 }).options.pricing).toBeUndefined();
    const pricing = { input: 2, output: 8, cacheRead: 0.2, cacheTtlMs: 3_600_000 };
    const own = createBaton({
      model: 'claude-sonnet-4-20250514',
      catalog: { 'claude-sonnet-4': { contextWindow: 100_000, encoding: 'o200k_base', pricing } },
    }).options;
    expect(own.contextWindow).toBe(100_000);
    expect(own.pricing).toEqual(pricing);
    expect(
      fails({
        model: 'x',
        catalog: { x: { contextWindow: 1000, encoding: 'o200k_base', pricing: { input: -1 } } },
      }),
    ).toMatch(/catalog\.x\.pricing/);
  });
});

/** The rows of the README table whose header row starts with `header`, as trimmed cells. */
function readmeTable(readme: string, header: string): string[][] {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${header} `));
  if (start < 0) throw new Error(`no README table headed "${header}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** A default as the README writes it: 1,000 for 1000, `[]` for an empty list. */
function written(value: unknown): string | undefined {
  if (typeof value === 'number') return value.toLocaleString('en-US');
  if (typeof value === 'boolean' || typeof value === 'string') return String(value);
  if (Array.isArray(value) && value.length === 0) return '[]';
  return undefined; // functions and objects (store, tokenizer): described, not printed
}

/**
 * Every key of `schema` is named (in backticks) in the first column of exactly one row, no row
 * names a key the schema does not have, every row states a default and a meaning, and every
 * default the code applies is the one the row states.
 */
function expectTableCovers(rows: string[][], keys: string[], defaults: Record<string, unknown>) {
  const named = rows.flatMap(([option = '']) => [...option.matchAll(/`(\w+)`/g)].map((m) => m[1]));
  expect(named.sort()).toEqual([...keys].sort());
  for (const [option = '', byDefault = '', meaning = ''] of rows) {
    expect(byDefault, `${option}: default`).not.toBe('');
    expect(meaning, `${option}: meaning`).not.toBe('');
    for (const [, key] of option.matchAll(/`(\w+)`/g)) {
      const value = written(defaults[key as string]);
      if (value !== undefined)
        expect(byDefault, `${option}: the code's default is ${value}`).toContain(value);
    }
  }
}

describe("the README's options tables", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('list every createBaton option, each with the default the code applies and its meaning', () => {
    const keys = Object.keys(optionsSchema.shape);
    expect(keys).toEqual(expect.arrayContaining(['opaqueTokens', 'notesCap', 'minCompactionGain']));
    expectTableCovers(readmeTable(readme, 'option'), keys, { ...resolveOptions({}) });
  });

  it('list every selfCompact field, each with its default and meaning', () => {
    expectTableCovers(
      readmeTable(readme, '`selfCompact` field'),
      Object.keys(selfCompactSchema.shape),
      selfCompactSchema.parse({}),
    );
  });
});

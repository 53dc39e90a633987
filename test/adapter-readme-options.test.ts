import { readFileSync } from 'node:fs';
import { createBaton } from '@baton/core';
import { describe, expect, it } from 'vitest';

/*
 * The options table lives in @baton/core's README alone. The adapters' READMEs link to it
 * instead of copying it, and where they state an option's default in passing ("`storeTimeoutMs`
 * (default 30 s)"), it is the default the core applies.
 */

const ROOT = new URL('../', import.meta.url);
const ADAPTERS = ['packages/ai-sdk/README.md', 'packages/langgraph/README.md', 'packages/mastra/README.md'];
const CORE_OPTIONS = 'https://github.com/baton-dev/baton/blob/main/packages/core/README.md#options';
const defaults: Record<string, unknown> = { ...createBaton({}).options };

/** "1,000" -> 1000, "30 s" -> 30000 (for a `...Ms` option), "true" -> true. */
function parsed(key: string, text: string): unknown {
  if (text === 'true' || text === 'false') return text === 'true';
  const seconds = /^([\d,.]+) s$/.exec(text);
  if (seconds && key.endsWith('Ms')) return Number(seconds[1]?.replace(/,/g, '')) * 1_000;
  if (/^[\d,.]+$/.test(text)) return Number(text.replace(/,/g, ''));
  return text;
}

describe("adapter READMEs and the core's options table", () => {
  it('no adapter README copies the options table; ai-sdk links to it', () => {
    for (const file of ADAPTERS) {
      const readme = readFileSync(new URL(file, ROOT), 'utf8');
      expect(readme, file).not.toMatch(/^\| option\s+\| default/m);
    }
    expect(readFileSync(new URL(ADAPTERS[0] as string, ROOT), 'utf8')).toContain(CORE_OPTIONS);
  });

  it('every default an adapter README states for a core option is the one the core applies', () => {
    const stated: string[] = [];
    for (const file of ADAPTERS) {
      const readme = readFileSync(new URL(file, ROOT), 'utf8');
      for (const [, key = '', text = ''] of readme.matchAll(
        /`(\w+)`,? \(?default `?(\d[\d,.]*(?: s)?|[^`),;\s]+)`?/g,
      )) {
        if (!(key in defaults)) continue; // an option of some other API (a framework's own)
        stated.push(`${file}: ${key}`);
        expect(parsed(key, text.trim()), `${file}: ${key} (default ${text})`).toEqual(defaults[key]);
      }
    }
    // The mentions this test guards today (so a rewording that hides them from it shows here).
    expect(stated.length).toBeGreaterThanOrEqual(5);
  });
});

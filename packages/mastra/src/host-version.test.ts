import { BatonConfigError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { assertMastraHost, MINIMUM_MASTRA_CORE } from './host-version.ts';
import { BatonProcessor } from './index.ts';

describe('the Mastra host check', () => {
  it('refuses a @mastra/core without processLLMRequest, naming the version needed', () => {
    for (const old of ['1.4.1', '1.32.9', '0.24.0']) {
      expect(() => assertMastraHost(old)).toThrow(BatonConfigError);
      expect(() => assertMastraHost(old)).toThrow(`needs @mastra/core >= ${MINIMUM_MASTRA_CORE}`);
    }
  });

  it('accepts the minimum and anything newer', () => {
    for (const ok of [MINIMUM_MASTRA_CORE, '1.33.1', '1.71.0', '2.0.0', '1.40.0-alpha.3']) {
      expect(() => assertMastraHost(ok)).not.toThrow();
    }
  });

  it('reads the installed @mastra/core, which this repository keeps above the minimum', () => {
    expect(() => assertMastraHost()).not.toThrow();
    expect(() => new BatonProcessor({ model: 'gpt-4o' })).not.toThrow();
  });
});

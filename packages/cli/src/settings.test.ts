import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-input.ts';
import { nonDefaultSettings, parseSettings, settingsProblem } from './settings.ts';

describe('engine settings from flags', () => {
  it('reads each flag into its createBaton option', () => {
    expect(
      parseSettings({
        'compact-at': '0.9',
        'target-at': '0.3',
        'truncate-at': '0.95',
        'warn-at': '0.7',
        'min-compaction-gain': '0.05',
        'keep-recent': '6',
        keep: '2',
      }),
    ).toEqual({
      compactAt: 0.9,
      targetAt: 0.3,
      truncateAt: 0.95,
      warnAt: 0.7,
      minCompactionGain: 0.05,
      keepRecentGroups: 6,
      keep: 2,
    });
  });

  it("refuses what core refuses, naming the flag in core's words", () => {
    expect(() => parseSettings({ 'target-at': '0.9' })).toThrow(UsageError);
    expect(() => parseSettings({ 'target-at': '0.9' })).toThrow(
      '--target-at: must be below --compact-at (0.8), received 0.9',
    );
    expect(() => parseSettings({ 'compact-at': '1.5' })).toThrow(/^--compact-at: /);
    expect(() => parseSettings({ 'keep-recent': '2.5' })).toThrow(/^--keep-recent: /);
    expect(() => parseSettings({ keep: '-1' })).toThrow(/^--keep: /);
    expect(() => parseSettings({ 'compact-at': 'high' })).toThrow(
      '--compact-at: expected a number, got "high"',
    );
    expect(() => parseSettings({ 'min-compaction-gain': '' })).toThrow(
      /^--min-compaction-gain: expected a number/,
    );
    // In a grid the option names stay.
    expect(settingsProblem({ compactAt: 0.7, targetAt: 0.7 }, (name) => name)).toBe(
      'targetAt: must be below compactAt (0.7), received 0.7',
    );
  });

  it("reports what differs from core's defaults, the thresholds a moved compactAt moves included", () => {
    expect(nonDefaultSettings({})).toEqual({});
    expect(nonDefaultSettings({ compactAt: 0.8, keep: 3 })).toEqual({});
    expect(nonDefaultSettings({ compactAt: 0.6 })).toEqual({ compactAt: 0.6, warnAt: 0.48, targetAt: 0.225 });
  });
});

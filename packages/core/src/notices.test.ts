import { describe, expect, it } from 'vitest';
import { compactionNotices } from './notices.ts';
import { createEntry } from './transcript.ts';

describe('compaction notices', () => {
  const spans = [{ stage: 'fold-tool-results', from: 3, to: 3, entries: [createEntry(3, 'user', 'old')] }];

  it('states what was freed, and never a negative number', () => {
    const [freed] = compactionNotices(spans, 1_234, 10_000);
    expect(freed?.text).toContain('1,234 tokens freed');
    for (const net of [0, -1, -5]) {
      const [notice] = compactionNotices(spans, net, 10_000);
      expect(notice?.text).toContain('no net tokens freed');
      expect(notice?.text).not.toMatch(/-\d+ tokens/);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { runExample } from './index.ts';

describe('example: prompt-cache breakpoints on @ai-sdk/anthropic', () => {
  it('marks every request, bridging a parallel batch, and a breakpoint cache reads over 90% of the input; none without them', async () => {
    const on = await runExample();
    expect(on.requests.length).toBe(31);
    // Two on each; three on the request after the batch of 12 parallel reads (the bridge).
    expect(on.requests.map((r) => r.marks)).toEqual(on.requests.map((_, i) => (i === 11 ? 3 : 2)));
    // Every request after the first reads the whole request before it from the cache.
    for (const [i, request] of on.requests.entries())
      if (i > 0) expect(request.read).toBe(on.requests[i - 1]!.input);
    expect(on.readShare).toBeGreaterThan(0.9);
    const off = await runExample({ promptCache: false });
    expect(off.readShare).toBe(0);
  });
});

import { createBaton, createEntry, type Entry } from '@baton/core';
import { expect, it } from 'vitest';
import { type KeyValue, kvStore, mapKeyValue } from './kv-store.ts';

// A service that stops answering (a network partition, a stuck connection pool) must not stop
// the agent: every store call gets `storeTimeoutMs`, then fails like any store error, and
// nothing is evicted whose archive write did not go through.
it('an unresponsive key-value service costs a step its deadline, not the whole agent', async () => {
  const healthy = mapKeyValue();
  let down = false;
  const flaky: KeyValue = {
    get: (key) => (down ? new Promise(() => {}) : healthy.get(key)),
    compareAndSet: (key, expected, next) =>
      down ? new Promise(() => {}) : healthy.compareAndSet(key, expected, next),
  };
  const baton = createBaton({ contextWindow: 8_000, store: kvStore(flaky), storeTimeoutMs: 50 });
  const session = baton.session('chat-1');
  const history: Entry[] = [createEntry(0, 'user', 'Summarize the incident log.')];
  for (let step = 0; step < 50; step++) {
    history.push(
      createEntry(history.length, 'assistant', `Reading part ${step} of the log. ${'detail '.repeat(80)}`),
      createEntry(history.length + 1, 'user', `Part ${step + 1}, please.`),
    );
  }

  down = true;
  const prepared = await session.prepare({ entries: history });
  // Above compactAt, within the budget: a compaction is due.
  expect(prepared.tokens.before).toBeGreaterThan(baton.options.compactAt * prepared.tokens.budget);
  expect(prepared.tokens.before).toBeLessThanOrEqual(prepared.tokens.budget);
  // The step still went out: within the budget, every message either sent or (had the archive
  // write gone through) archived; the failures are events to log.
  expect(prepared.tokens.after).toBeLessThanOrEqual(prepared.tokens.budget);
  expect(prepared.events.filter((e) => e.type === 'store-failed').length).toBeGreaterThan(0);
  expect(prepared.outcome).not.toBe('compacted'); // no eviction without its archive write

  down = false;
  const recovered = await session.prepare({ entries: history });
  expect(recovered.outcome).toBe('compacted');
  expect(recovered.events.some((e) => e.type === 'store-failed')).toBe(false);
});

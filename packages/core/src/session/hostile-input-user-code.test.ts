import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatonEvent } from '../contracts/events.ts';
import { defineStage } from '../contracts/stage.ts';
import type { Store } from '../contracts/store.ts';
import { detectContextOverflow } from '../provider/overflow.ts';
import { memoryStore } from '../stores/memory-store.ts';
import type { NoteSection, NotesBackend } from '../stores/notes-backend.ts';
import { gptTokenizer } from '../tokens/tokenizer.ts';
import { BatonConfigError } from '../util/errors.ts';
import { withTimeout } from '../util/timeout.ts';
import { createBaton } from './baton.ts';
import { toolLoop } from './hostile-input.fixtures.ts';

// Each case here was a failure of an adversarial run against core: a crash, a hang, or data
// silently replaced. Every test fails on the code before its fix.

/** Unhandled rejections during a test, collected instead of left to crash the process. */
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('user code that throws, hangs or returns garbage', () => {
  it('a custom stage returning malformed decisions is skipped with an event, not a TypeError', async () => {
    for (const decisions of [[null], [{ kind: 'replace', stage: 'x', keys: 'id-1', entries: [] }], 'nope']) {
      const bad = defineStage('bad', async () => ({ decisions }) as never);
      const baton = createBaton({ contextWindow: 8_000, stages: [bad] });
      const prepared = await baton.session('s').prepare({ entries: toolLoop(12) });
      const failed = prepared.events.find((e) => e.type === 'stage-failed');
      expect(failed).toMatchObject({ type: 'stage-failed', stage: 'bad' });
      expect(JSON.stringify(failed)).toMatch(/rejected/);
    }
  });

  it('a probe judge that throws synchronously answers CONTINUE and leaves no timer to reject later', async () => {
    const baton = createBaton({
      contextWindow: 8_000,
      selfCompact: {
        judge: () => {
          throw new Error('judge exploded');
        },
        minSteps: 0,
        probeEvery: 1,
        minTokens: 0,
        timeoutMs: 20,
      },
    });
    const events: BatonEvent[] = [];
    const prepared = await baton.session('s').prepare({ entries: toolLoop(3, 50) });
    events.push(...prepared.events);
    await settle(60); // past the probe's timeout
    expect(unhandled).toEqual([]);
    expect(JSON.stringify(events)).toContain('judge exploded');
  });

  it('withTimeout settles on a synchronous throw and clears its timer', async () => {
    await expect(
      withTimeout(
        () => {
          throw new Error('sync');
        },
        20,
        'the work',
      ),
    ).rejects.toThrow('sync');
    await settle(50);
    expect(unhandled).toEqual([]);
  });

  it('a notes backend that never answers fails the read with an event and the write with an error, within storeTimeoutMs', async () => {
    const never = () => new Promise<never>(() => {});
    const notes: NotesBackend = { read: never, version: never, write: never };
    const baton = createBaton({ contextWindow: 8_000, notes, storeTimeoutMs: 30 });
    const session = baton.session('s');
    const prepared = await session.prepare({ entries: toolLoop(3, 50) });
    expect(prepared.entries.length).toBeGreaterThan(0);
    expect(prepared.events).toContainEqual(
      expect.objectContaining({ type: 'store-failed', operation: 'readNotes' }),
    );
    await expect(session.notes.write('plan', 'step 1')).rejects.toThrow(/notes backend's read timed out/);
    await settle(60);
    expect(unhandled).toEqual([]);
  });

  it('a notes backend gets and gives copies: editing its sections later changes nothing Baton holds', async () => {
    let stored: NoteSection[] = [];
    let version = 0;
    const notes: NotesBackend = {
      read: async () => ({ sections: stored, version }),
      write: async (_id, sections, expected) => {
        if (expected !== version) return { ok: false, currentVersion: version };
        stored = sections;
        version++;
        return { ok: true, version };
      },
    };
    const session = createBaton({ contextWindow: 8_000, notes }).session('s');
    const written = await session.notes.write('plan', 'step 1');
    (stored[0] as NoteSection).text = 'rewritten behind Baton';
    expect(written[0]?.text).toBe('step 1');
    expect((await session.notes.read('plan'))?.text).toBe('step 1');
  });

  it('a corrupt stored ledger or state ({} or null) is ignored with an event', async () => {
    for (const corrupt of [{}, null, { decisions: [null] }, 7]) {
      const inner = memoryStore();
      const store: Store = {
        ...inner,
        getDocument: async <T>(namespace: string, key: string) => {
          const real = await inner.getDocument<T>(namespace, key);
          return { value: corrupt as T, version: (real?.version ?? 0) + 1 };
        },
      };
      const baton = createBaton({ contextWindow: 8_000, store });
      const prepared = await baton.session('s').prepare({ entries: toolLoop(12) });
      expect(prepared.entries.length).toBeGreaterThan(0);
      expect(
        prepared.events.some((e) => e.type === 'store-failed' && /corrupt|null|number/.test(e.error)),
      ).toBe(true);
    }
  });

  it('recoverFromOverflow answers when the error has a throwing message getter', async () => {
    const hostile = {
      get message(): string {
        throw new Error('getter exploded');
      },
      code: 'context_length_exceeded',
    };
    const session = createBaton({ contextWindow: 8_000 }).session('s');
    await expect(session.recoverFromOverflow(hostile)).resolves.toBe('retry');
    expect(detectContextOverflow(hostile)).toBeDefined();
  });

  it('parses a hostile 1 MB error body in linear time', () => {
    const bodies = [
      'input is too long '.repeat(60_000),
      `prompt is too long: ${'1'.repeat(1_000_000)}`,
      'maximum context length is 8192 tokens '.repeat(30_000),
      `{"error":{"message":"${'9,'.repeat(500_000)} tokens"}}`,
    ];
    const start = performance.now();
    for (const body of bodies) detectContextOverflow({ message: body, responseBody: body });
    // Quadratic parsing took 11-17 s on 109 KB; linear parsing of 4 MB takes well under this.
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(
      detectContextOverflow(new Error('prompt is too long: 210,000 tokens > 200,000 maximum')),
    ).toMatchObject({ tokens: 210_000, limit: 200_000 });
    expect(
      detectContextOverflow(
        new Error(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130500 tokens.",
        ),
      ),
    ).toMatchObject({ tokens: 130_500, limit: 128_000 });
  });

  it('a tokenizer answering NaN, a negative or a non-number is a BatonConfigError at creation', () => {
    for (const answer of [Number.NaN, -1, Number.POSITIVE_INFINITY, '12']) {
      const tokenizer = { name: 'broken', count: () => answer as number };
      expect(() => createBaton({ contextWindow: 8_000, tokenizer })).toThrow(BatonConfigError);
      expect(() => createBaton({ contextWindow: 8_000, tokenizer })).toThrow(
        /\[baton\] \[tokenizer\] broken/,
      );
    }
    // An estimate with a fraction is rounded up, not refused.
    const estimate = { name: 'chars/4', count: (text: string) => text.length / 4 };
    expect(createBaton({ contextWindow: 8_000, tokenizer: estimate }).options.tokenizer.count('abcde')).toBe(
      2,
    );
  });

  it('a tokenizer that turns bad later fails the call with a BatonConfigError, never lets history through', async () => {
    const base = gptTokenizer();
    let calls = 0;
    const flaky = { name: 'flaky', count: (text: string) => (++calls > 1 ? -5 : base.count(text)) };
    const session = createBaton({ contextWindow: 8_000, tokenizer: flaky }).session('s');
    await expect(session.prepare({ entries: toolLoop(12) })).rejects.toThrow(BatonConfigError);
  });
});

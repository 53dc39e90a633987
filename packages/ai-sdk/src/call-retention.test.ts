import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createBaton } from './index.ts';

// A full collection on demand (vitest runs without --expose-gc).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('batonMiddleware and the params it hands the model', () => {
  it('keeps no call alive through params the model (or a logger) holds on to', async () => {
    const session = createBaton({ contextWindow: 16_000 }).session('retention');
    // The mock keeps every call's params in doGenerateCalls, as a request logger would.
    const inner = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    const model = wrapLanguageModel({ model: inner, middleware: session.middleware });
    const prompts: WeakRef<object>[] = [];
    for (let call = 0; call < 5; call++) {
      const prompt: LanguageModelV4CallOptions['prompt'] = [
        { role: 'user', content: [{ type: 'text', text: `question ${call}: ${'x'.repeat(2_000)}` }] },
      ];
      prompts.push(new WeakRef(prompt));
      await model.doGenerate({ prompt });
    }
    expect(inner.doGenerateCalls).toHaveLength(5);
    await settle();
    gc();
    await settle();
    // The host's earlier prompts (whole histories, in a real loop) are gone although every
    // projected params object the model was handed is still held; the session may keep its
    // newest call's.
    expect(prompts.slice(0, -1).filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  });
});

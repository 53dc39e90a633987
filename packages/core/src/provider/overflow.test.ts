import { describe, expect, it } from 'vitest';
import type { Prepared } from '../contracts/prepared.ts';
import { createBaton } from '../session/baton.ts';
import { callWithOverflowRecovery, type UnfitInfo } from '../session/overflow-recovery.ts';
import { createEntry } from '../transcript/transcript.ts';
import { detectContextOverflow } from './overflow.ts';

describe('detectContextOverflow', () => {
  it('recognises OpenAI, Anthropic, Google and LangChain shapes, also wrapped', () => {
    const openai = {
      status: 400,
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    };
    expect(detectContextOverflow(openai)).toMatchObject({ tokens: 130_512, limit: 128_000 });
    const anthropic = Object.assign(
      new Error(
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210345 tokens > 200000 maximum"}}',
      ),
      { status: 400 },
    );
    expect(detectContextOverflow(anthropic)).toMatchObject({ tokens: 210_345, limit: 200_000 });
    const google = {
      message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      status: 'INVALID_ARGUMENT',
    };
    expect(detectContextOverflow(google)).toMatchObject({ tokens: 1_200_000, limit: 1_048_576 });
    class ContextOverflowError extends Error {
      override name = 'ContextOverflowError';
    }
    expect(detectContextOverflow(new ContextOverflowError('too long'))).toBeDefined();
    // The AI SDK's APICallError keeps the provider body as a string.
    const aiSdk = Object.assign(new Error('Bad Request'), {
      name: 'AI_APICallError',
      statusCode: 400,
      responseBody: JSON.stringify({
        error: { code: 'context_length_exceeded', message: 'Please reduce the length of the messages.' },
      }),
    });
    expect(detectContextOverflow(aiSdk)).toBeDefined();
    expect(detectContextOverflow(new Error('wrapped', { cause: anthropic }))).toMatchObject({
      tokens: 210_345,
    });
  });

  // Each provider's rejection as its API words it (the text inside the error body its package
  // surfaces), with the count and the limit the recovery learns from.
  const providerTexts: Array<[string, string, { tokens?: number; limit?: number }]> = [
    [
      'Anthropic, input + max_tokens over the window',
      'input length and `max_tokens` exceed context limit: 28129 + 4096 > 32000, decrease input length or `max_tokens` and try again',
      { tokens: 28_129, limit: 27_904 },
    ],
    [
      'Anthropic, prompt too long',
      'prompt is too long: 210345 tokens > 200000 maximum',
      { tokens: 210_345, limit: 200_000 },
    ],
    ['Anthropic 413', 'request_too_large', {}],
    [
      'OpenAI Responses',
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      {},
    ],
    [
      'OpenAI-compatible (vLLM, DeepSeek): the messages apart from the completion',
      "This model's maximum context length is 65536 tokens. However, you requested 70144 tokens (66048 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
      { tokens: 66_048, limit: 65_536 },
    ],
    ['Amazon Bedrock', 'The model returned the following errors: Input is too long for requested model.', {}],
    [
      'Amazon Bedrock, token count',
      'Too many input tokens. Max input tokens: 8192, request input token count: 9000',
      {},
    ],
    [
      'Gemini',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      { tokens: 1_200_000, limit: 1_048_576 },
    ],
    [
      'Mistral',
      'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
      { tokens: 40_000, limit: 32_768 },
    ],
    [
      'xAI',
      "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
      { tokens: 140_000, limit: 131_072 },
    ],
    ['llama.cpp server', 'the request exceeds the available context size, try increasing it', {}],
    ['Ollama', 'prompt too long; exceeded max context length by 4 tokens', {}],
    [
      'Cohere',
      'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4524',
      {},
    ],
  ];
  it.each(providerTexts)('recognises %s', (_provider, message, numbers) => {
    // As the AI SDK surfaces it: an APICallError holding the provider's JSON body.
    const wrapped = Object.assign(new Error('Bad Request'), {
      name: 'AI_APICallError',
      statusCode: 400,
      responseBody: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }),
    });
    const report = detectContextOverflow(wrapped);
    expect(report).toBeDefined();
    expect({ tokens: report?.tokens, limit: report?.limit }).toEqual({
      tokens: numbers.tokens,
      limit: numbers.limit,
    });
    expect(detectContextOverflow(new Error(message))).toBeDefined();
  });

  it('ignores other errors', () => {
    expect(detectContextOverflow(new Error('rate limit exceeded'))).toBeUndefined();
    expect(detectContextOverflow({ status: 500, message: 'overloaded' })).toBeUndefined();
    expect(detectContextOverflow(undefined)).toBeUndefined();
    expect(detectContextOverflow('socket hang up')).toBeUndefined();
  });
});

describe('Session.recoverFromOverflow', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 50}`).join(' ');
  const history = Array.from({ length: 40 }, (_, i) =>
    createEntry(i, i % 2 ? 'assistant' : 'user', words(150)),
  );
  const overflow = {
    error: { code: 'context_length_exceeded', message: 'prompt is too long: 30000 tokens > 16000 maximum' },
  };

  it('retries once with a tighter compaction, then turns a second overflow into unfit with a checkpoint', async () => {
    const baton = createBaton({ contextWindow: 20_000 });
    const session = baton.session('s');
    const first = await session.prepare({ entries: history });
    expect(first.outcome).toBe('ok');
    expect(await session.recoverFromOverflow(new Error('socket hang up'))).toBe('not-overflow');
    expect(await session.recoverFromOverflow(overflow)).toBe('retry');
    const retry = await session.prepare({ entries: history });
    expect(retry.outcome).toBe('compacted');
    expect(retry.tokens.after).toBeLessThan(first.tokens.after);
    // The provider's count taught the calibration.
    expect(retry.tokens.before).toBeGreaterThan(first.tokens.after);
    expect(await session.recoverFromOverflow(overflow)).toBe('unfit');
    const next = await session.prepare({ entries: history });
    expect(next.notices.find((n) => n.type === 'unfit')?.text).toMatch(
      /rejected the request as too long twice/,
    );
  });

  it('a successful call in between resets the count', async () => {
    const session = createBaton({ contextWindow: 20_000 }).session('s');
    await session.prepare({ entries: history });
    expect(await session.recoverFromOverflow(overflow)).toBe('retry');
    await session.prepare({ entries: history });
    session.observeUsage({ inputTokens: 9_000 });
    expect(await session.recoverFromOverflow(overflow)).toBe('retry');
  });
});

describe('callWithOverflowRecovery', () => {
  const history = Array.from({ length: 40 }, (_, i) =>
    createEntry(i, i % 2 ? 'assistant' : 'user', `message ${i} `.repeat(80)),
  );
  const overflow = {
    error: { code: 'context_length_exceeded', message: 'prompt is too long: 30000 tokens > 16000 maximum' },
  };

  it('retries once with a re-prepared, smaller attempt, and passes other errors through', async () => {
    const session = createBaton({ contextWindow: 20_000 }).session('s');
    const sizes: number[] = [];
    const answer = await callWithOverflowRecovery(session, {
      attempt: await session.prepare({ entries: history }),
      prepared: (p) => p,
      reprepare: () => session.prepare({ entries: history }),
      call: (p, retry) => {
        sizes.push(p.tokens.after);
        if (!retry) throw overflow;
        return 'answered';
      },
      unfit: () => 'unfit',
    });
    expect(answer).toBe('answered');
    expect(sizes[1]!).toBeLessThan(sizes[0]!);
    await expect(
      callWithOverflowRecovery(session, {
        attempt: await session.prepare({ entries: history }),
        prepared: (p) => p,
        reprepare: () => session.prepare({ entries: history }),
        call: () => {
          throw new Error('rate limited');
        },
        unfit: () => 'unfit',
      }),
    ).rejects.toThrow('rate limited');
  });

  it('ends through unfit, never calling the model, when the projection is unfit or overflows twice', async () => {
    const tiny = createBaton({ contextWindow: 1_000 }).session('tiny');
    let calls = 0;
    const prepared = await tiny.prepare({
      entries: [createEntry(0, 'system', 'word '.repeat(2_000)), createEntry(1, 'user', 'go')],
    });
    const info = await callWithOverflowRecovery<Prepared, UnfitInfo | number>(tiny, {
      attempt: prepared,
      prepared: (p) => p,
      reprepare: () => Promise.resolve(prepared),
      call: () => ++calls,
      unfit: (unfit) => unfit,
    });
    expect(calls).toBe(0);
    if (prepared.outcome !== 'unfit') throw new Error(`expected unfit, got ${prepared.outcome}`);
    expect(info).toMatchObject({ checkpointRef: prepared.checkpointRef, message: prepared.message });

    const session = createBaton({ contextWindow: 20_000 }).session('twice');
    const twice = await callWithOverflowRecovery(session, {
      attempt: await session.prepare({ entries: history }),
      prepared: (p) => p,
      reprepare: () => session.prepare({ entries: history }),
      call: () => {
        throw overflow;
      },
      unfit: (unfit) => unfit,
    });
    expect(twice).toMatchObject({ reason: expect.stringMatching(/too long twice/) });
  });
});

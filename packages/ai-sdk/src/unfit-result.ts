import type {
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { UnfitInfo } from '@baton/core/internals';

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The model is not called: the step ends with an assistant message saying what happened. */
export function unfitGenerateResult(info: UnfitInfo): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text: info.message }],
    finishReason: { unified: 'other', raw: 'baton-unfit' },
    usage: ZERO_USAGE,
    providerMetadata: { baton: { outcome: 'unfit', reason: info.reason, checkpointRef: info.checkpointRef } },
    warnings: [],
  };
}

export function unfitStreamResult(info: UnfitInfo): LanguageModelV4StreamResult {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 'baton-unfit' },
    { type: 'text-delta', id: 'baton-unfit', delta: info.message },
    { type: 'text-end', id: 'baton-unfit' },
    {
      type: 'finish',
      usage: ZERO_USAGE,
      finishReason: { unified: 'other', raw: 'baton-unfit' },
      providerMetadata: {
        baton: { outcome: 'unfit', reason: info.reason, checkpointRef: info.checkpointRef },
      },
    },
  ];
  return {
    stream: new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}

import type { UnfitInfo } from '@baton/core/internals';
import type { CachedLLMStepResponse } from '@mastra/core/processors';

/**
 * A model response without a model call (`processLLMRequest` may answer from its own
 * chunks): the step ends with the explanation as its text, stored like any reply.
 */
export function unfitResponse(unfit: UnfitInfo): CachedLLMStepResponse {
  return {
    chunks: [
      { type: 'text-start', payload: { id: 'baton-unfit' } },
      { type: 'text-delta', payload: { id: 'baton-unfit', text: unfit.message } },
      { type: 'text-end', payload: { id: 'baton-unfit' } },
      {
        type: 'finish',
        payload: {
          stepResult: { reason: 'stop' },
          output: { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
          metadata: { baton: { outcome: 'unfit', ...unfit } },
          messages: { all: [], user: [], nonUser: [] },
        },
      },
    ],
  };
}

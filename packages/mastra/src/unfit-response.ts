import type { UnfitInfo } from '@baton/core';
import type { CachedLLMStepResponse } from '@mastra/core/processors';

/** What the agent (and the user) read when a step could not be sent. */
export function unfitText(unfit: UnfitInfo): string {
  return (
    `[baton] This step was not sent to the model: the context cannot fit the window (${unfit.reason}). ` +
    `Nothing was lost: a checkpoint is saved as ${JSON.stringify(unfit.checkpointRef)}, and the next turn starts with a notice explaining it.`
  );
}

/**
 * A model response without a model call (`processLLMRequest` may answer from its own
 * chunks): the step ends with the explanation as its text, stored like any reply.
 */
export function unfitResponse(unfit: UnfitInfo): CachedLLMStepResponse {
  return {
    chunks: [
      { type: 'text-start', payload: { id: 'baton-unfit' } },
      { type: 'text-delta', payload: { id: 'baton-unfit', text: unfitText(unfit) } },
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

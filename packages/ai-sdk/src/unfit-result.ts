import type {
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { UnfitInfo } from '@baton/core';

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

export function unfitText({ reason, checkpointRef }: UnfitInfo): string {
  return (
    `[baton] This step was not sent to the model: the context cannot fit the window (${reason}). ` +
    `Nothing was lost: a checkpoint of the notes, compaction ledger and archive index is saved as ${JSON.stringify(checkpointRef)}, ` +
    'and the next turn starts with a notice explaining it. Ask for smaller tool outputs or a new turn to continue.'
  );
}

/** The model is not called: the step ends with an assistant message saying what happened. */
export function unfitGenerateResult(info: UnfitInfo): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text: unfitText(info) }],
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
    { type: 'text-delta', id: 'baton-unfit', delta: unfitText(info) },
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

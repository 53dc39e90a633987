import type { CallOutput } from '@baton/core';

/** The fields LangChain's chat models carry that say where a call goes and how much it may answer. */
interface ChatModelFields {
  model?: unknown;
  modelName?: unknown;
  maxTokens?: unknown;
  invocationKwargs?: { max_tokens?: unknown };
  bound?: unknown;
  _llmType?: () => string;
}

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;

/**
 * The model id, provider and output limit of the chat model a call goes to, as its request will
 * send them: `ChatAnthropic` fills `maxTokens` in at construction (16,384 for current Claude
 * models in `@langchain/anthropic` 1.5.11; `invocationKwargs.max_tokens` overrides it), so the
 * limit it sends is always known; `ChatOpenAI` sends none unless `maxTokens` /
 * `maxCompletionTokens` is set (-1: none). The provider is `langchain.<_llmType()>`. A model
 * bound with tools (`bindTools`) is read through its `bound` model.
 *
 * @example
 * callOutputOf(new ChatAnthropic({ model: 'claude-sonnet-4-5' }));
 * // { modelId: 'claude-sonnet-4-5', provider: 'langchain.anthropic', maxOutputTokens: 16384 }
 */
export function callOutputOf(model: unknown): CallOutput {
  let fields = model as ChatModelFields | undefined;
  for (let depth = 0; depth < 4 && fields?.bound && typeof fields.bound === 'object'; depth++)
    fields = fields.bound as ChatModelFields;
  if (!fields || typeof fields !== 'object') return {};
  const id = typeof fields.model === 'string' ? fields.model : fields.modelName;
  const type = typeof fields._llmType === 'function' ? fields._llmType() : undefined;
  const limit = positive(fields.invocationKwargs?.max_tokens) ?? positive(fields.maxTokens);
  return {
    ...(typeof id === 'string' && id.length > 0 ? { modelId: id } : {}),
    ...(type ? { provider: `langchain.${type}` } : {}),
    ...(limit !== undefined ? { maxOutputTokens: limit } : {}),
    // wrapModelCall hands the handler the agent's own model: its max_tokens is the model's.
    cannotCapOutput:
      'the chat model sends its own maxTokens; set maxTokens on the model (ChatAnthropic, ChatOpenAI)',
  };
}

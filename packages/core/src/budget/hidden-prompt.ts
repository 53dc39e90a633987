/**
 * Tokens a provider adds to a request that are in no message of it: the system prompt Claude
 * models are given when a request offers tools ("Tool use with Claude", pricing: 346 tokens
 * with `tool_choice` auto or none on the Claude 4 models and Claude Sonnet 3.7; 264 on the
 * Haiku 3 models, 530 on Claude 3 Opus, 159 on Claude 3 Sonnet). Billed as input, and so part
 * of the budget; a multiplicative calibration cannot learn a fixed offset like this one from
 * the first report without over-counting every later request of the conversation.
 */
const CLAUDE_TOOL_PROMPT: ReadonlyArray<[RegExp, number]> = [
  [/claude-3-(5-)?haiku/, 264],
  [/claude-3-opus/, 530],
  [/claude-3-sonnet/, 159],
  [/claude/, 346],
];

/**
 * Tokens of the prompt a provider adds for the model `modelId` (an AI SDK or Bedrock model id,
 * or the `model` option) when the request carries tools; 0 for models that add none Baton knows of.
 *
 * @example
 * hiddenPromptTokens('claude-sonnet-4-5', true); // 346
 * hiddenPromptTokens('us.anthropic.claude-3-5-haiku-20241022-v1:0', true); // 264
 * hiddenPromptTokens('gpt-4o', true); // 0
 */
export function hiddenPromptTokens(modelId: string | undefined, hasTools: boolean): number {
  if (!hasTools || modelId === undefined) return 0;
  const id = modelId.toLowerCase();
  return CLAUDE_TOOL_PROMPT.find(([pattern]) => pattern.test(id))?.[1] ?? 0;
}

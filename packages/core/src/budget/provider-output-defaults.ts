/**
 * What a provider package sends as the output limit (`max_tokens`) when the call sets none,
 * by the provider id the host reports and the model id. Anthropic's API requires `max_tokens`
 * and refuses a request whose input and `max_tokens` exceed the window, so a package that fills
 * in a large default (64,000 for `claude-sonnet-4-5`) decides how much room the prompt has.
 * OpenAI's and Google's APIs take no limit unless one is given: nothing is reserved for them
 * but Baton's own default. Read in the packages' dist: `@ai-sdk/openai` 4.0.118 sends
 * `max_tokens` (chat) / `max_output_tokens` (responses) only when the call sets
 * `maxOutputTokens`, `@ai-sdk/google` 4.0.121 `maxOutputTokens` likewise, and
 * `@ai-sdk/amazon-bedrock` 5.0.101 `inferenceConfig.maxTokens` likewise (Bedrock then applies
 * the model's own default, which Baton does not know: set `maxOutputTokens` there).
 */

/** `[model pattern, max_tokens]`, first match wins. */
type Rule = readonly [RegExp, number];

/**
 * `@ai-sdk/anthropic` 4.0.105 (`dist/index.js`, its runtime rules): the model's maximum output,
 * 4,096 for models it does not know by name, 128,000 for unknown `claude-` ids (it treats them as
 * current models). Provider ids ending in `anthropic.messages` (its `name` option renames the
 * prefix) are this package's model class.
 */
const AI_SDK_ANTHROPIC: readonly Rule[] = [
  [/claude-(sonnet|opus|haiku)-5-5|claude-opus-5|claude-fable-5|claude-opus-4-[78]|claude-sonnet-5/, 128_000],
  [/claude-(sonnet|opus)-4-6/, 128_000],
  [/claude-(sonnet|opus|haiku)-4-5/, 64_000],
  [/claude-opus-4-1/, 32_000],
  [/claude-sonnet-4[-@]/, 64_000],
  [/claude-opus-4[-@]/, 32_000],
  [/claude-3-haiku/, 4_096],
  [/claude-(instant([-]|$)|v?2(?=$|[-.:])|3(?=$|[-.]))/, 4_096],
  [/claude-/, 128_000],
  [/.*/, 4_096],
];

/**
 * Provider ids as hosts report them (AI SDK `model.provider`). LangChain's chat models carry the
 * limit they send (`ChatAnthropic.maxTokens` is filled in at construction), so its adapter passes
 * that as the call's own limit and needs no entry here.
 */
const PROVIDERS: ReadonlyArray<readonly [RegExp, readonly Rule[]]> = [
  [/(^|\.)anthropic\.messages$/, AI_SDK_ANTHROPIC],
];

/**
 * The output limit a provider package sends for `modelId` when the call sets none; undefined
 * when it sends none (`@ai-sdk/openai`, `@ai-sdk/google`) or the provider is not one Baton
 * knows (Baton's own default reserve applies).
 *
 * @example
 * providerOutputDefault('anthropic.messages', 'claude-sonnet-4-5'); // 64_000
 * providerOutputDefault('openai.chat', 'gpt-4o'); // undefined
 */
export function providerOutputDefault(provider: string, modelId: string): number | undefined {
  const rules = PROVIDERS.find(([pattern]) => pattern.test(provider))?.[1];
  if (!rules) return undefined;
  const id = modelId.toLowerCase();
  return rules.find(([pattern]) => pattern.test(id))?.[1];
}

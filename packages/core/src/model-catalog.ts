import type { EncodingName } from './tokenizer.ts';

/** Context window (tokens) and tokenizer of a model family. */
export interface ModelInfo {
  contextWindow: number;
  /** Maximum output tokens the provider allows; used for the default output reserve. */
  maxOutput?: number | undefined;
  encoding: EncodingName;
}

/**
 * Context windows of common current models, from the providers' model pages (November 2026).
 * Matched by longest prefix after stripping a `provider/` prefix; override or extend with the
 * `catalog` option. Non-OpenAI models count with o200k_base and are corrected by calibration.
 */
export const MODEL_CATALOG: Readonly<Record<string, ModelInfo>> = {
  // OpenAI
  'gpt-5': { contextWindow: 400_000, maxOutput: 128_000, encoding: 'o200k_base' },
  'gpt-4.1': { contextWindow: 1_047_576, maxOutput: 32_768, encoding: 'o200k_base' },
  'gpt-4o': { contextWindow: 128_000, maxOutput: 16_384, encoding: 'o200k_base' },
  'gpt-4-turbo': { contextWindow: 128_000, maxOutput: 4_096, encoding: 'cl100k_base' },
  'gpt-4': { contextWindow: 8_192, maxOutput: 8_192, encoding: 'cl100k_base' },
  'gpt-3.5-turbo': { contextWindow: 16_385, maxOutput: 4_096, encoding: 'cl100k_base' },
  'gpt-oss': { contextWindow: 131_072, maxOutput: 131_072, encoding: 'o200k_base' },
  o1: { contextWindow: 200_000, maxOutput: 100_000, encoding: 'o200k_base' },
  o3: { contextWindow: 200_000, maxOutput: 100_000, encoding: 'o200k_base' },
  'o4-mini': { contextWindow: 200_000, maxOutput: 100_000, encoding: 'o200k_base' },
  // Anthropic
  'claude-opus-4': { contextWindow: 200_000, maxOutput: 32_000, encoding: 'o200k_base' },
  'claude-sonnet-4': { contextWindow: 200_000, maxOutput: 64_000, encoding: 'o200k_base' },
  'claude-haiku-4': { contextWindow: 200_000, maxOutput: 64_000, encoding: 'o200k_base' },
  'claude-3-7-sonnet': { contextWindow: 200_000, maxOutput: 64_000, encoding: 'o200k_base' },
  'claude-3-5-sonnet': { contextWindow: 200_000, maxOutput: 8_192, encoding: 'o200k_base' },
  'claude-3-5-haiku': { contextWindow: 200_000, maxOutput: 8_192, encoding: 'o200k_base' },
  // Google
  'gemini-2.5-pro': { contextWindow: 1_048_576, maxOutput: 65_536, encoding: 'o200k_base' },
  'gemini-2.5-flash': { contextWindow: 1_048_576, maxOutput: 65_536, encoding: 'o200k_base' },
  'gemini-2.0-flash': { contextWindow: 1_048_576, maxOutput: 8_192, encoding: 'o200k_base' },
  'gemini-1.5-pro': { contextWindow: 2_097_152, maxOutput: 8_192, encoding: 'o200k_base' },
  // Mistral
  'mistral-large': { contextWindow: 128_000, encoding: 'o200k_base' },
  'mistral-medium': { contextWindow: 128_000, encoding: 'o200k_base' },
  'mistral-small': { contextWindow: 128_000, encoding: 'o200k_base' },
  codestral: { contextWindow: 256_000, encoding: 'o200k_base' },
  devstral: { contextWindow: 128_000, encoding: 'o200k_base' },
  // Qwen
  'qwen3-coder': { contextWindow: 262_144, maxOutput: 65_536, encoding: 'o200k_base' },
  qwen3: { contextWindow: 131_072, maxOutput: 32_768, encoding: 'o200k_base' },
  'qwen2.5': { contextWindow: 131_072, maxOutput: 8_192, encoding: 'o200k_base' },
  'qwen-max': { contextWindow: 32_768, maxOutput: 8_192, encoding: 'o200k_base' },
  // DeepSeek
  'deepseek-chat': { contextWindow: 128_000, maxOutput: 8_192, encoding: 'o200k_base' },
  'deepseek-reasoner': { contextWindow: 128_000, maxOutput: 64_000, encoding: 'o200k_base' },
  'deepseek-v3': { contextWindow: 128_000, maxOutput: 8_192, encoding: 'o200k_base' },
};

/** Finds a model by longest matching prefix (`anthropic/claude-sonnet-4-20250514` -> `claude-sonnet-4`). */
export function lookupModel(
  model: string,
  catalog: Readonly<Record<string, ModelInfo>> = MODEL_CATALOG,
): ModelInfo | undefined {
  const name = model.toLowerCase().replace(/^.*\//, '');
  let best: string | undefined;
  for (const prefix of Object.keys(catalog)) {
    if (name.startsWith(prefix.toLowerCase()) && (best === undefined || prefix.length > best.length))
      best = prefix;
  }
  return best === undefined ? undefined : catalog[best];
}

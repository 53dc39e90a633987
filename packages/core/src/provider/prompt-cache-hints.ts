import type { Entry } from '../transcript/transcript.ts';
import {
  type CacheBreakpoint,
  type CacheBreakpointInput,
  cacheBreakpoints,
  type HostBreakpoint,
} from './cache-breakpoints.ts';
import type { PromptMessage } from './model-prompt.ts';
import { promptCacheKey } from './prompt-cache-key.ts';

/**
 * How the AI SDK's provider packages take prompt-cache hints (read from their dist):
 * - `@ai-sdk/anthropic` (and Anthropic on Vertex): `providerOptions.anthropic.cacheControl` on a
 *   system message, a message (its last part), a part or a tool; a call-level one is a
 *   request-level `cache_control` that takes a slot too. Over 4 it drops the rest with a warning.
 * - `@ai-sdk/amazon-bedrock`: `providerOptions.bedrock.cachePoint` on a message appends a
 *   `cachePoint` block after its content (Claude and Nova models cache; others do not).
 * - `@ai-sdk/openai` (chat and responses): caching is automatic; `providerOptions.openai.promptCacheKey`
 *   becomes `prompt_cache_key`.
 */
export type CacheIdiom = 'anthropic' | 'bedrock' | 'openai' | 'none';

/** The idiom of an AI SDK model from its `provider` and `modelId`. */
export function cacheIdiomOf(provider: string, modelId: string): CacheIdiom {
  if (/(^|\.)anthropic(\.|$)/.test(provider)) return 'anthropic';
  if (provider === 'amazon-bedrock' || provider.startsWith('bedrock'))
    return /anthropic\.claude|amazon\.nova/.test(modelId) ? 'bedrock' : 'none';
  // Mastra's model router names the provider alone.
  if (provider === 'openai' || provider === 'openai.chat' || provider === 'openai.responses') return 'openai';
  return 'none';
}

type Options = Record<string, Record<string, unknown> | undefined>;

/** A tool definition as the SDK passes it to the provider: only its providerOptions matter here. */
export interface PromptTool {
  providerOptions?: unknown;
  [field: string]: unknown;
}

/** A model call in the provider specification's form (AI SDK `LanguageModelV2..4CallOptions`). */
export interface HintedCall {
  prompt: PromptMessage[];
  tools?: PromptTool[] | undefined;
  providerOptions?: unknown;
}

export interface PromptCacheContext {
  idiom: CacheIdiom;
  sessionId: string;
  /** The projection in the prompt (`Prepared.entries`). */
  entries: readonly Entry[];
  /** Whether the prompt's leading system messages include Baton's or the host's system text (not only system entries). */
  system: string;
  /** Whether the prompt ends with Baton's trailing notices (a last user message). */
  trailer: boolean;
}

const options = (value: unknown): Options => (value ?? {}) as Options;

function marker(providerOptions: unknown, idiom: CacheIdiom): boolean {
  const o = options(providerOptions);
  if (idiom === 'bedrock') return Boolean(o.bedrock?.cachePoint ?? o.amazonBedrock?.cachePoint);
  return Boolean(o.anthropic?.cacheControl ?? o.anthropic?.cache_control);
}

function marked(value: { providerOptions?: unknown }, idiom: CacheIdiom): { providerOptions: Options } {
  const o = options(value.providerOptions);
  const hint =
    idiom === 'bedrock'
      ? { bedrock: { ...o.bedrock, cachePoint: { type: 'default' } } }
      : { anthropic: { ...o.anthropic, cacheControl: { type: 'ephemeral' } } };
  return { ...value, providerOptions: { ...o, ...hint } };
}

/**
 * A call with Baton's prompt-cache hints in the idiom of its provider package (see
 * `cacheIdiomOf`): the breakpoints `cacheBreakpoints` decides, on copies of the messages and
 * tool they mark (the host's own objects are never changed), counting the host's own; or the
 * session id as the OpenAI cache key when the host set none. A call whose prompt does not have
 * the layout of the projection (its messages not one per entry) gets no breakpoint.
 *
 * @example const hinted = withPromptCacheHints(params, { idiom: cacheIdiomOf(model.provider, model.modelId), sessionId, entries, system, trailer });
 */
export function withPromptCacheHints<T extends HintedCall>(call: T, context: PromptCacheContext): T {
  const { idiom } = context;
  if (idiom === 'none') return call;
  if (idiom === 'openai') {
    const o = options(call.providerOptions);
    if (o.openai?.promptCacheKey !== undefined) return call;
    const openai = { ...o.openai, promptCacheKey: promptCacheKey(context.sessionId) };
    return { ...call, providerOptions: { ...o, openai } };
  }
  const prompt = call.prompt;
  const leading = (messages: readonly { role: string }[]) => {
    let n = 0;
    while (messages[n]?.role === 'system') n++;
    return n;
  };
  const promptLeading = leading(prompt);
  const entryLeading = leading(context.entries);
  const conversationEnd = prompt.length - (context.trailer ? 1 : 0);
  if (conversationEnd - promptLeading !== context.entries.length - entryLeading) return call;
  // Where each neutral position is in this prompt.
  const indexOf = (breakpoint: CacheBreakpoint): number | 'tools' => {
    if (breakpoint.at === 'tools') return 'tools';
    if (breakpoint.at === 'system') return promptLeading - 1;
    return breakpoint.index < entryLeading
      ? breakpoint.index
      : promptLeading + breakpoint.index - entryLeading;
  };
  // @ai-sdk/amazon-bedrock places no cachePoint on tools: its prefix ends at the system.
  const tools = idiom === 'bedrock' ? [] : (call.tools ?? []);
  const input: CacheBreakpointInput = {
    entries: context.entries,
    system: context.system,
    tools: tools.length,
  };
  const ours = cacheBreakpoints({ ...input, cap: Number.POSITIVE_INFINITY });
  const at = (index: number | 'tools'): HostBreakpoint =>
    ours.find((b) => indexOf(b) === index) ?? { at: 'elsewhere' };
  // The host's own: on messages (or their last part: the same block), parts, tools, the request.
  const host: HostBreakpoint[] = [];
  prompt.forEach((message, index) => {
    const parts = typeof message.content === 'string' ? [] : message.content;
    const last = parts.at(-1);
    if (marker(message.providerOptions, idiom) || (last && marker(last.providerOptions, idiom)))
      host.push(at(index));
    for (const part of parts.slice(0, -1))
      if (marker(part.providerOptions, idiom)) host.push({ at: 'elsewhere' });
  });
  tools.forEach((tool, index) => {
    if (marker(tool.providerOptions, idiom))
      host.push(index === tools.length - 1 ? at('tools') : { at: 'elsewhere' });
  });
  if (idiom === 'anthropic' && marker(call.providerOptions, idiom)) host.push({ at: 'elsewhere' });
  const placed = cacheBreakpoints({ ...input, host }).map(indexOf);
  if (placed.length === 0) return call;
  return {
    ...call,
    prompt: prompt.map((message, index) => (placed.includes(index) ? marked(message, idiom) : message)),
    ...(placed.includes('tools')
      ? { tools: tools.map((tool, index) => (index === tools.length - 1 ? marked(tool, idiom) : tool)) }
      : {}),
  };
}

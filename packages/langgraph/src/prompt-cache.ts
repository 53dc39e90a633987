import {
  cacheBreakpoints,
  type HostBreakpoint,
  type Prepared,
  promptCacheKey,
  type Session,
} from '@baton/core';
import { promptCacheOf } from '@baton/core/internals';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';

type Block = { type?: string; cache_control?: unknown; [field: string]: unknown };

/** What Baton reads of the request to place its hints. */
export interface CacheRequest {
  model?: unknown;
  systemMessage?: unknown;
  modelSettings?: Record<string, unknown>;
}

/** What the model call is sent with, Baton's hints in place. */
export interface HintedRequest {
  messages: BaseMessage[];
  /** The system prompt as text (no breakpoint on it), or as a message whose block carries one. */
  systemPrompt?: string;
  systemMessage?: SystemMessage;
  modelSettings?: Record<string, unknown>;
}

interface ModelIdentity {
  getName?: () => string;
  _defaultConfig?: { modelProvider?: unknown };
  promptCacheKey?: unknown;
}

/** The provider behind a LangChain chat model, as LangChain's own Anthropic caching middleware tells it. */
function providerOf(model: unknown): 'anthropic' | 'openai' | undefined {
  const m = (model ?? {}) as ModelIdentity;
  const name = typeof m.getName === 'function' ? m.getName() : undefined;
  const configured = name === 'ConfigurableModel' ? m._defaultConfig?.modelProvider : undefined;
  if (name === 'ChatAnthropic' || configured === 'anthropic') return 'anthropic';
  if (name === 'ChatOpenAI' || configured === 'openai') return 'openai';
  return undefined;
}

const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);

/**
 * The message with `cache_control` on its last block, as @langchain/anthropic carries it to the
 * wire; undefined when the message has no block that takes one. A tool result with text content
 * is sent as the `tool_result` block itself (a user message, as Anthropic receives every tool
 * result), so the breakpoint sits on the result, not inside it.
 */
function markedMessage(message: BaseMessage, cacheControl: unknown): BaseMessage | undefined {
  const mark = (blocks: Block[]): Block[] | undefined => {
    const last = blocks.at(-1);
    if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') return undefined;
    return [...blocks.slice(0, -1), { ...last, cache_control: cacheControl }];
  };
  if (ToolMessage.isInstance(message)) {
    if (typeof message.content === 'string')
      return new HumanMessage({
        content: [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id,
            content: message.content,
            ...(message.status === 'error' ? { is_error: true } : {}),
            cache_control: cacheControl,
          },
        ],
      });
    const content = mark(blocksOf(message.content));
    if (!content) return undefined;
    const { tool_call_id, name, id, status, artifact } = message;
    return new ToolMessage({ content: content as never, tool_call_id, name, id, status, artifact });
  }
  const text = typeof message.content === 'string' ? message.content : undefined;
  const blocks: Block[] =
    text === undefined ? blocksOf(message.content) : text ? [{ type: 'text', text }] : [];
  if (AIMessage.isInstance(message)) {
    // Tool calls go out as tool_use blocks after the content: the last one takes the mark.
    const uses = (message.tool_calls ?? []).map((call) => ({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: call.args,
    }));
    const present = new Set(blocks.filter((b) => b.type === 'tool_use').map((b) => b.id));
    const content = mark([...blocks, ...uses.filter((use) => !present.has(use.id))]);
    if (!content) return undefined;
    const { tool_calls, id, name, response_metadata, additional_kwargs } = message;
    return new AIMessage({
      content: content as never,
      ...(tool_calls ? { tool_calls } : {}),
      id,
      name,
      response_metadata,
      additional_kwargs,
    });
  }
  const content = mark(blocks);
  return content
    ? new HumanMessage({ content: content as never, id: message.id, name: message.name })
    : undefined;
}

/**
 * The model call with Baton's prompt-cache hints for its provider (`promptCache`, default on):
 * ChatAnthropic gets `cache_control` on the system block (the end of the stable prefix) and on
 * the newest message before the notices, within 4 counting the host's own content blocks;
 * LangChain's `anthropicPromptCachingMiddleware`, placed before Baton, leaves a request-level
 * `cache_control` that Baton takes over (its `ttl` kept): that one would land on the notices.
 * ChatOpenAI gets `promptCacheKey` = the session id unless the host set one. Any other model's
 * call is sent as it was.
 */
export function withCacheHints(
  session: Session,
  request: CacheRequest,
  prepared: Prepared,
  messages: BaseMessage[],
): HintedRequest {
  const plain: HintedRequest = { messages, systemPrompt: prepared.system };
  if (!promptCacheOf(session)) return plain;
  const provider = providerOf(request.model);
  const settings = request.modelSettings ?? {};
  if (provider === 'openai') {
    const own = settings.promptCacheKey ?? (request.model as ModelIdentity).promptCacheKey;
    if (own !== undefined) return plain;
    return { ...plain, modelSettings: { ...settings, promptCacheKey: promptCacheKey(session.id) } };
  }
  if (provider !== 'anthropic') return plain;
  const { cache_control: requestLevel, ...rest } = settings;
  const cacheControl = requestLevel ?? { type: 'ephemeral' };
  // The host's own marks: on its system blocks (folded into Baton's one system block) and on messages.
  const host: HostBreakpoint[] = [];
  const systemBlocks = blocksOf((request.systemMessage as { content?: unknown } | undefined)?.content);
  if (systemBlocks.some((block) => block.cache_control)) host.push({ at: 'system' });
  prepared.entries.forEach((_, index) => {
    const blocks = blocksOf(messages[index]?.content);
    blocks.forEach((block, i) => {
      if (block.cache_control)
        host.push(i === blocks.length - 1 ? { at: 'entry', index } : { at: 'elsewhere' });
    });
  });
  // ChatAnthropic's tool definitions are not Baton's to mark: the prefix ends at the system.
  const placed = cacheBreakpoints({ entries: prepared.entries, system: prepared.system, tools: 0, host });
  const hinted = [...messages];
  // Baton's breakpoint on the system, or the host's own kept there (its blocks are folded into one).
  const markSystem =
    prepared.system.length > 0 && [...placed, ...host].some((breakpoint) => breakpoint.at === 'system');
  const systemMessage = markSystem
    ? new SystemMessage({ content: [{ type: 'text', text: prepared.system, cache_control: cacheControl }] })
    : undefined;
  for (const breakpoint of placed) {
    if (breakpoint.at === 'entry') {
      const marked = markedMessage(hinted[breakpoint.index]!, cacheControl);
      if (marked) hinted[breakpoint.index] = marked;
    }
  }
  return {
    messages: hinted,
    ...(systemMessage ? { systemMessage } : { systemPrompt: prepared.system }),
    ...(requestLevel === undefined ? {} : { modelSettings: rest }),
  };
}

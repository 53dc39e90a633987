import {
  arrayOf,
  countText,
  createWire,
  isRecord,
  type ProviderWire,
  type ProviderWireOptions,
  sseResponse,
  textOf,
  type WireBody,
  type WireFormatSpec,
} from './common.ts';

/**
 * Tokens Anthropic adds for its tool-use system prompt when a request carries tools (346 with
 * `tool_choice` auto or none on the Claude 4 models, per "Tool use with Claude", pricing
 * section); part of why a provider's count is not Baton's.
 */
const TOOL_SYSTEM_PROMPT_TOKENS = 346;
/** Per-message framing (role markers): a provider-like overhead, not a published figure. */
const MESSAGE_OVERHEAD = 4;
/** An image block, at Anthropic's ceiling for an image that is not resized (about 1.15 megapixels / 750). */
const IMAGE_TOKENS = 1_600;

function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!isRecord(block)) return '';
  switch (block.type) {
    case 'text':
      return textOf(block.text);
    case 'thinking':
      return textOf(block.thinking);
    case 'tool_use':
    case 'server_tool_use':
      return textOf(block.name) + textOf(block.input);
    case 'tool_result':
      return typeof block.content === 'string'
        ? block.content
        : arrayOf(block.content).map(blockText).join('\n');
    case 'document':
      return isRecord(block.source) ? textOf(block.source.data ?? block.source.content) : '';
    default:
      return '';
  }
}

function imageCount(content: unknown): number {
  return arrayOf(content).reduce<number>((n, block) => {
    if (!isRecord(block)) return n;
    if (block.type === 'image') return n + 1;
    return block.type === 'tool_result' ? n + imageCount(block.content) : n;
  }, 0);
}

/**
 * Anthropic's input count of a Messages body, provider-like: cl100k_base over the system text,
 * the tool definitions and every block's text (tool inputs as JSON), 4 tokens per message, 346
 * for the tool-use system prompt when tools are present, 1,600 per image.
 */
export function anthropicCount(body: WireBody): number {
  const system =
    typeof body.system === 'string' ? body.system : arrayOf(body.system).map(blockText).join('\n');
  const tools = arrayOf(body.tools);
  let total = countText(system) + (tools.length > 0 ? TOOL_SYSTEM_PROMPT_TOKENS : 0);
  for (const tool of tools)
    if (isRecord(tool))
      total += countText(textOf(tool.name) + textOf(tool.description) + textOf(tool.input_schema));
  for (const message of arrayOf(body.messages)) {
    if (!isRecord(message)) continue;
    const content = typeof message.content === 'string' ? [message.content] : arrayOf(message.content);
    total +=
      MESSAGE_OVERHEAD + countText(content.map(blockText).join('\n')) + IMAGE_TOKENS * imageCount(content);
  }
  return total;
}

const anthropicError = (status: number, type: string, message: string) =>
  Response.json(
    { type: 'error', error: { type, message } },
    { status, headers: { 'request-id': 'req_stub' } },
  );

const anthropicSpec: WireFormatSpec = {
  count: anthropicCount,
  maxOutputTokens: (body) => (typeof body.max_tokens === 'number' ? body.max_tokens : undefined),
  stream: (_url, body) => body.stream === true,
  // The two wordings Anthropic sends, as 400 invalid_request_error: the prompt alone over the
  // window, or the prompt fitting but not with the requested max_tokens.
  refuse: ({ inputTokens, maxOutputTokens, window }) =>
    anthropicError(
      400,
      'invalid_request_error',
      inputTokens > window
        ? `prompt is too long: ${inputTokens} tokens > ${window} maximum`
        : `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${maxOutputTokens ?? 0} > ${window}, decrease input length or \`max_tokens\` and try again`,
    ),
  answer: ({ request, turn, usage, ids }) => {
    const id = `msg_${ids}_${request.index + 1}`;
    const model = textOf(request.body.model);
    const content: Array<Record<string, unknown>> = [];
    if (turn.text) content.push({ type: 'text', text: turn.text });
    if ('calls' in turn)
      for (const [i, call] of turn.calls.entries())
        content.push({
          type: 'tool_use',
          id: `toolu_${ids}_${request.index + 1}_${i}`,
          name: call.name,
          input: call.input,
        });
    const stopReason = 'calls' in turn && turn.calls.length > 0 ? 'tool_use' : 'end_turn';
    // input_tokens is what was neither read from nor written to the cache, as Anthropic reports it.
    const inputUsage = {
      input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
      cache_creation_input_tokens: usage.cacheWriteTokens,
      cache_read_input_tokens: usage.cacheReadTokens,
    };
    if (!request.stream)
      return Response.json({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { ...inputUsage, output_tokens: usage.outputTokens },
      });
    const events: Array<{ event: string; data: unknown }> = [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...inputUsage, output_tokens: 1 },
          },
        },
      },
      { event: 'ping', data: { type: 'ping' } },
    ];
    content.forEach((block, index) => {
      const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
      const delta =
        block.type === 'text'
          ? { type: 'text_delta', text: block.text }
          : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
      events.push(
        { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
      );
    });
    events.push(
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: usage.outputTokens },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    );
    return sseResponse(events);
  },
};

/**
 * A `fetch` answering as Anthropic's Messages API (`POST /v1/messages`): JSON, or server-sent
 * events when the body asks `stream: true`; usage with cache fields; a request over the window
 * refused with Anthropic's own 400.
 *
 * @example
 * const wire = anthropicWire({ contextWindow: 32_000 });
 * const anthropic = createAnthropic({ apiKey: 'test', fetch: wire.fetch });
 * await generateText({ model: anthropic('claude-sonnet-4-5'), prompt: 'hi' });
 * wire.requests[0].body.messages; // what @ai-sdk/anthropic sent
 */
export function anthropicWire(options: ProviderWireOptions = {}): ProviderWire {
  return createWire(anthropicSpec, options);
}

function blocksOf(message: Record<string, unknown>): unknown[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : arrayOf(message.content);
}

/**
 * Violations of the Messages API's structural rules in a request body, each worded after the
 * 400 Anthropic answers with:
 * - "messages: first message must use the \"user\" role";
 * - "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: ID.
 *   Each `tool_use` block must have a corresponding `tool_result` block in the next message.";
 * - "messages.N: unexpected `tool_use_id` found in `tool_result` blocks: ID. Each `tool_result`
 *   block must have a corresponding `tool_use` block in the previous message.";
 * - tool_result blocks come first in their user message ("Tool use with Claude": "tool result
 *   blocks must come FIRST in the content array; any text must come AFTER all tool results");
 * - "messages: text content blocks must be non-empty" (system blocks too), and every message
 *   but a final assistant one has non-empty content.
 */
export function anthropicRuleViolations(body: WireBody): string[] {
  const out: string[] = [];
  const messages = arrayOf(body.messages).filter(isRecord);
  if (messages.length === 0) out.push('messages: at least one message is required');
  if (messages[0] && messages[0].role !== 'user')
    out.push('messages: first message must use the "user" role');
  for (const block of arrayOf(body.system))
    if (isRecord(block) && block.type === 'text' && textOf(block.text) === '')
      out.push('system: text content blocks must be non-empty');
  messages.forEach((message, n) => {
    const blocks = blocksOf(message);
    const isFinalAssistant = n === messages.length - 1 && message.role === 'assistant';
    if (blocks.length === 0 && !isFinalAssistant)
      out.push(
        `messages.${n}: all messages must have non-empty content except for the optional final assistant message`,
      );
    for (const block of blocks)
      if (isRecord(block) && block.type === 'text' && textOf(block.text) === '')
        out.push(`messages.${n}: text content blocks must be non-empty`);
    const uses = blocks
      .filter((b) => isRecord(b) && b.type === 'tool_use')
      .map((b) => textOf((b as WireBody).id));
    if (message.role === 'assistant' && uses.length > 0) {
      const next = messages[n + 1];
      const answered = new Set(
        next?.role === 'user'
          ? blocksOf(next)
              .filter((b) => isRecord(b) && b.type === 'tool_result')
              .map((b) => textOf((b as WireBody).tool_use_id))
          : [],
      );
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0)
        out.push(
          `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`,
        );
    }
    const results = blocks.filter((b) => isRecord(b) && b.type === 'tool_result') as WireBody[];
    if (results.length > 0) {
      const previous = messages[n - 1];
      const called = new Set(
        previous?.role === 'assistant'
          ? blocksOf(previous)
              .filter((b) => isRecord(b) && b.type === 'tool_use')
              .map((b) => textOf((b as WireBody).id))
          : [],
      );
      const unexpected = results.map((r) => textOf(r.tool_use_id)).filter((id) => !called.has(id));
      if (unexpected.length > 0)
        out.push(
          `messages.${n}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}`,
        );
      const firstOther = blocks.findIndex((b) => !(isRecord(b) && b.type === 'tool_result'));
      const lastResult = blocks.findLastIndex((b) => isRecord(b) && b.type === 'tool_result');
      if (firstOther !== -1 && firstOther < lastResult)
        out.push(`messages.${n}: tool_result blocks must come first in the content array`);
    }
  });
  return out;
}

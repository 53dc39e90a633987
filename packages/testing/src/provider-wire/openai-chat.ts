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
 * OpenAI's documented framing for chat models ("How to count tokens with tiktoken"): 3 tokens
 * per message, 1 more for a `name`, 3 to prime the reply.
 */
const MESSAGE_OVERHEAD = 3;
const REPLY_PRIMING = 3;
/** An image part at high detail, one 512px tile and the base: 85 + 170 * 4. */
const IMAGE_TOKENS = 765;

function contentText(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  let text = '';
  let images = 0;
  for (const part of arrayOf(content)) {
    if (!isRecord(part)) continue;
    if (part.type === 'image_url' || part.type === 'input_image') images++;
    else text += textOf(part.text ?? part.refusal ?? (isRecord(part.file) ? part.file.file_data : ''));
  }
  return { text, images };
}

/** The text of OpenAI function tools, as both OpenAI APIs carry them (nested under `function` or flat). */
export function openaiToolsText(tools: unknown): string {
  return arrayOf(tools)
    .map((tool) => {
      if (!isRecord(tool)) return '';
      const fn = isRecord(tool.function) ? tool.function : tool;
      return textOf(fn.name) + textOf(fn.description) + textOf(fn.parameters);
    })
    .join('\n');
}

/**
 * OpenAI's input count of a Chat Completions body, provider-like: cl100k_base over contents,
 * tool-call names and arguments and the tool definitions, plus OpenAI's documented framing of
 * 3 tokens a message (1 more for a name) and 3 for the reply, 765 an image.
 */
export function openaiChatCount(body: WireBody): number {
  let total = REPLY_PRIMING + countText(openaiToolsText(body.tools));
  for (const message of arrayOf(body.messages)) {
    if (!isRecord(message)) continue;
    const { text, images } = contentText(message.content);
    const calls = arrayOf(message.tool_calls)
      .map((c) =>
        isRecord(c) && isRecord(c.function) ? textOf(c.function.name) + textOf(c.function.arguments) : '',
      )
      .join('');
    total += MESSAGE_OVERHEAD + (message.name ? 1 : 0) + countText(text + calls) + IMAGE_TOKENS * images;
  }
  return total;
}

/** OpenAI's rejection of a request over the context window, as its API sends it (400 context_length_exceeded). */
export function openaiContextError(message: string, param: string): Response {
  return Response.json(
    { error: { message, type: 'invalid_request_error', param, code: 'context_length_exceeded' } },
    { status: 400 },
  );
}

const chatSpec: WireFormatSpec = {
  count: openaiChatCount,
  maxOutputTokens: (body) =>
    typeof body.max_completion_tokens === 'number'
      ? body.max_completion_tokens
      : typeof body.max_tokens === 'number'
        ? body.max_tokens
        : undefined,
  stream: (_url, body) => body.stream === true,
  refuse: ({ inputTokens, maxOutputTokens, window }) =>
    openaiContextError(
      maxOutputTokens === undefined
        ? `This model's maximum context length is ${window} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`
        : `This model's maximum context length is ${window} tokens. However, you requested ${inputTokens + maxOutputTokens} tokens (${inputTokens} in the messages, ${maxOutputTokens} in the completion). Please reduce the length of the messages or completion.`,
      'messages',
    ),
  answer: ({ request, turn, usage, ids }) => {
    const id = `chatcmpl-stub${request.index + 1}`;
    const model = textOf(request.body.model);
    const created = 1_700_000_000 + request.index;
    const toolCalls =
      'calls' in turn
        ? turn.calls.map((call, i) => ({
            id: `call_${ids}_${request.index + 1}_${i}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.input) },
          }))
        : [];
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    // prompt_tokens includes what was read from the cache; OpenAI reports no cache writes.
    const openaiUsage = {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
      prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    if (!request.stream)
      return Response.json({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: turn.text ?? null,
              ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
            },
            finish_reason: finishReason,
            logprobs: null,
          },
        ],
        usage: openaiUsage,
      });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
      data: { id, object: 'chat.completion.chunk', created, model, choices, ...extra },
    });
    const events = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
    if (turn.text) events.push(chunk([{ index: 0, delta: { content: turn.text }, finish_reason: null }]));
    toolCalls.forEach((call, index) => {
      events.push(chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }]));
    });
    events.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
    // Usage arrives in a last chunk with no choices, and only when the request asked for it.
    const options = request.body.stream_options;
    if (isRecord(options) && options.include_usage === true) events.push(chunk([], { usage: openaiUsage }));
    return sseResponse([...events, { data: '[DONE]' }]);
  },
};

/**
 * A `fetch` answering as OpenAI's Chat Completions API (`POST /v1/chat/completions`): JSON, or
 * `chat.completion.chunk` server-sent events ending in `[DONE]` when the body asks `stream:
 * true`, with usage in a last chunk when `stream_options.include_usage` is set; a request over
 * the window refused with OpenAI's 400 `context_length_exceeded`.
 *
 * @example
 * const wire = openaiChatWire({ contextWindow: 16_000 });
 * const openai = createOpenAI({ apiKey: 'test', fetch: wire.fetch });
 * await generateText({ model: openai.chat('gpt-4o'), prompt: 'hi' });
 */
export function openaiChatWire(options: ProviderWireOptions = {}): ProviderWire {
  return createWire(chatSpec, options);
}

/**
 * Violations of Chat Completions' structural rules, worded after OpenAI's 400s:
 * - "An assistant message with 'tool_calls' must be followed by tool messages responding to
 *   each 'tool_call_id'. The following tool_call_ids did not have response messages: ID";
 * - "Invalid parameter: messages with role 'tool' must be a response to a preceeding message
 *   with 'tool_calls'." (the tool messages right after the assistant message that called);
 * - an assistant message needs content or tool calls (API reference: `content` is "required
 *   unless `tool_calls` or `function_call` is specified"); "[] is too short - 'messages'".
 */
export function openaiChatRuleViolations(body: WireBody): string[] {
  const out: string[] = [];
  const messages = arrayOf(body.messages).filter(isRecord);
  if (messages.length === 0) out.push("[] is too short - 'messages'");
  let open = new Set<string>();
  messages.forEach((message, n) => {
    if (message.role === 'tool') {
      const id = textOf(message.tool_call_id);
      if (!open.delete(id))
        out.push(
          `messages.[${n}].role: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (${id})`,
        );
      return;
    }
    if (open.size > 0)
      out.push(
        `messages.[${n - 1}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id': ${[...open].join(', ')}`,
      );
    open = new Set();
    if (message.role !== 'assistant') return;
    const calls = arrayOf(message.tool_calls).filter(isRecord);
    for (const call of calls) open.add(textOf(call.id));
    const { text } = contentText(message.content);
    if (calls.length === 0 && text === '')
      out.push(`messages.[${n}].content: an assistant message needs content or tool_calls`);
  });
  if (open.size > 0)
    out.push(
      `messages.[${messages.length - 1}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id': ${[...open].join(', ')}`,
    );
  return out;
}

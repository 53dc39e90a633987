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
} from './common.ts';
import { openaiContextError, openaiToolsText } from './openai-chat.ts';

/** Per-item framing, as for chat messages (OpenAI publishes no separate figure for items). */
const ITEM_OVERHEAD = 3;
const IMAGE_TOKENS = 765;

function itemText(item: Record<string, unknown>): { text: string; images: number } {
  switch (item.type) {
    case 'function_call':
      return { text: textOf(item.name) + textOf(item.arguments), images: 0 };
    case 'function_call_output':
      return { text: textOf(item.output), images: 0 };
    case 'reasoning':
      return {
        text: arrayOf(item.summary)
          .map((s) => (isRecord(s) ? textOf(s.text) : ''))
          .join(''),
        images: 0,
      };
    default: {
      if (typeof item.content === 'string') return { text: item.content, images: 0 };
      let text = '';
      let images = 0;
      for (const part of arrayOf(item.content))
        if (isRecord(part)) {
          if (part.type === 'input_image') images++;
          else text += textOf(part.text);
        }
      return { text, images };
    }
  }
}

/**
 * The input items of a Responses body with `item_reference`s resolved to the items this stub
 * answered earlier (`@ai-sdk/openai` refers to stored output instead of resending it).
 */
function inputItems(
  body: WireBody,
  stored: Map<string, Record<string, unknown>>,
): Array<Record<string, unknown>> {
  const input =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arrayOf(body.input);
  return input
    .filter(isRecord)
    .map((item) => (item.type === 'item_reference' ? (stored.get(textOf(item.id)) ?? item) : item));
}

function countWith(stored: Map<string, Record<string, unknown>>) {
  return (body: WireBody): number => {
    let total = 3 + countText(textOf(body.instructions) + openaiToolsText(body.tools));
    for (const item of inputItems(body, stored)) {
      const { text, images } = itemText(item);
      total += ITEM_OVERHEAD + countText(text) + IMAGE_TOKENS * images;
    }
    return total;
  };
}

/**
 * The Responses API's input count, provider-like: cl100k_base over instructions, tool
 * definitions and every input item (function calls and outputs, message text), 3 tokens an
 * item, 765 an image; `item_reference`s count as the items they refer to.
 */
export const openaiResponsesCount: (body: WireBody) => number = countWith(new Map());

/**
 * A `fetch` answering as OpenAI's Responses API (`POST /v1/responses`): a `response` object, or
 * its server-sent events (`response.created`, `response.output_item.added`, the text and
 * argument deltas, `response.output_item.done`, `response.completed`) when the body asks
 * `stream: true`; a request over the window refused with OpenAI's 400 `context_length_exceeded`.
 * Items it answered are remembered, so an `item_reference` to them is counted as the item.
 *
 * @example
 * const wire = openaiResponsesWire({ contextWindow: 16_000 });
 * const openai = createOpenAI({ apiKey: 'test', fetch: wire.fetch });
 * await generateText({ model: openai.responses('gpt-4o'), prompt: 'hi' });
 */
export function openaiResponsesWire(options: ProviderWireOptions = {}): ProviderWire {
  const stored = new Map<string, Record<string, unknown>>();
  return createWire(
    {
      count: countWith(stored),
      maxOutputTokens: (body) =>
        typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
      stream: (_url, body) => body.stream === true,
      // The Responses API names no numbers in its refusal.
      refuse: () =>
        openaiContextError(
          'Your input exceeds the context window of this model. Please adjust your input and try again.',
          'input',
        ),
      answer: ({ request, turn, usage, ids }) => {
        const n = request.index + 1;
        const output: Array<Record<string, unknown>> = [];
        if (turn.text)
          output.push({
            type: 'message',
            id: `msg_${ids}_${n}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: turn.text, annotations: [] }],
          });
        if ('calls' in turn)
          for (const [i, call] of turn.calls.entries())
            output.push({
              type: 'function_call',
              id: `fc_${ids}_${n}_${i}`,
              call_id: `call_${ids}_${n}_${i}`,
              name: call.name,
              arguments: JSON.stringify(call.input),
              status: 'completed',
            });
        for (const item of output) stored.set(textOf(item.id), item);
        const response = {
          id: `resp_${ids}_${n}`,
          object: 'response',
          created_at: 1_700_000_000 + n,
          status: 'completed',
          model: textOf(request.body.model),
          output,
          incomplete_details: null,
          usage: {
            input_tokens: usage.inputTokens,
            input_tokens_details: { cached_tokens: usage.cacheReadTokens },
            output_tokens: usage.outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.inputTokens + usage.outputTokens,
          },
        };
        if (!request.stream) return Response.json(response);
        let sequence = 0;
        const event = (type: string, data: Record<string, unknown>) => ({
          event: type,
          data: { type, sequence_number: sequence++, ...data },
        });
        const events = [
          event('response.created', { response: { ...response, status: 'in_progress', output: [] } }),
        ];
        output.forEach((item, index) => {
          if (item.type === 'message') {
            events.push(
              event('response.output_item.added', {
                output_index: index,
                item: { ...item, status: 'in_progress', content: [] },
              }),
              event('response.output_text.delta', {
                item_id: item.id,
                output_index: index,
                content_index: 0,
                delta: turn.text,
              }),
            );
          } else {
            events.push(
              event('response.output_item.added', {
                output_index: index,
                item: { ...item, status: 'in_progress', arguments: '' },
              }),
              event('response.function_call_arguments.delta', {
                item_id: item.id,
                output_index: index,
                delta: item.arguments,
              }),
            );
          }
          events.push(event('response.output_item.done', { output_index: index, item }));
        });
        events.push(event('response.completed', { response }));
        return sseResponse(events);
      },
    },
    options,
  );
}

/**
 * Violations of the Responses API's structural rules, worded after its 400s:
 * - "No tool output found for function call ID." (every `function_call` answered by a later
 *   `function_call_output` with its `call_id`);
 * - "No tool call found for function call output with call_id ID." (no output without its call
 *   earlier in the input);
 * - an input message needs content (`content` is required on input messages).
 */
export function openaiResponsesRuleViolations(body: WireBody): string[] {
  const out: string[] = [];
  const items = inputItems(body, new Map());
  const called = new Set<string>();
  const answered = new Set<string>();
  items.forEach((item, n) => {
    if (item.type === 'function_call') called.add(textOf(item.call_id));
    else if (item.type === 'function_call_output') {
      const id = textOf(item.call_id);
      if (!called.has(id))
        out.push(`input[${n}]: No tool call found for function call output with call_id ${id}.`);
      answered.add(id);
    } else if (
      (item.type === undefined || item.type === 'message') &&
      itemText(item).text === '' &&
      itemText(item).images === 0
    )
      out.push(`input[${n}]: a message item needs content`);
  });
  for (const id of called) if (!answered.has(id)) out.push(`No tool output found for function call ${id}.`);
  return out;
}

import {
  arrayOf,
  countText,
  createWire,
  isRecord,
  type ProviderWire,
  type ProviderWireOptions,
  textOf,
  type WireBody,
} from './common.ts';

/** Per-message framing: provider-like, as for Anthropic's models that Bedrock mostly serves. */
const MESSAGE_OVERHEAD = 4;
const IMAGE_TOKENS = 1_600;

function blockText(block: Record<string, unknown>): string {
  if (typeof block.text === 'string') return block.text;
  if (isRecord(block.toolUse)) return textOf(block.toolUse.name) + textOf(block.toolUse.input);
  if (isRecord(block.toolResult))
    return arrayOf(block.toolResult.content)
      .filter(isRecord)
      .map((c) => (typeof c.text === 'string' ? c.text : textOf(c.json)))
      .join('\n');
  if (isRecord(block.reasoningContent) && isRecord(block.reasoningContent.reasoningText))
    return textOf(block.reasoningContent.reasoningText.text);
  return '';
}

/**
 * Bedrock Converse's input count, provider-like: cl100k_base over the system blocks, the tool
 * specs and every content block (tool inputs and results as text), 4 tokens a message, 1,600 an
 * image. `cachePoint` blocks count nothing.
 */
export function bedrockCount(body: WireBody): number {
  const system = arrayOf(body.system).filter(isRecord).map(blockText).join('\n');
  const tools = isRecord(body.toolConfig) ? arrayOf(body.toolConfig.tools) : [];
  let total = countText(system + (tools.length ? textOf(tools) : ''));
  for (const message of arrayOf(body.messages)) {
    if (!isRecord(message)) continue;
    const blocks = arrayOf(message.content).filter(isRecord);
    total +=
      MESSAGE_OVERHEAD +
      countText(blocks.map(blockText).join('\n')) +
      IMAGE_TOKENS * blocks.filter((b) => isRecord(b.image)).length;
  }
  return total;
}

/**
 * A `fetch` answering as Amazon Bedrock's Converse API (`POST /model/{modelId}/converse`, JSON);
 * a request over the window refused as Bedrock does, a 400 `ValidationException` "Input is too
 * long for requested model." (ConverseStream's binary event stream is not spoken: a
 * `converse-stream` request is answered with a 501, so a test sees it and uses `generateText`.)
 *
 * @example
 * const wire = bedrockWire({ contextWindow: 32_000 });
 * const bedrock = createAmazonBedrock({ region: 'us-east-1', accessKeyId: 'a', secretAccessKey: 'b', fetch: wire.fetch });
 * await generateText({ model: bedrock('anthropic.claude-3-5-haiku-20241022-v1:0'), prompt: 'hi' });
 */
export function bedrockWire(options: ProviderWireOptions = {}): ProviderWire {
  return createWire(
    {
      count: bedrockCount,
      maxOutputTokens: (body) =>
        isRecord(body.inferenceConfig) && typeof body.inferenceConfig.maxTokens === 'number'
          ? body.inferenceConfig.maxTokens
          : undefined,
      stream: (url) => url.endsWith('/converse-stream'),
      refuse: () =>
        Response.json(
          { message: 'Input is too long for requested model.' },
          {
            status: 400,
            headers: {
              'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
            },
          },
        ),
      answer: ({ request, turn, usage, ids }) => {
        if (request.stream)
          return Response.json(
            {
              message: '[baton] [provider-wire] bedrockWire does not speak ConverseStream; use generateText',
            },
            { status: 501 },
          );
        const content: Array<Record<string, unknown>> = turn.text ? [{ text: turn.text }] : [];
        if ('calls' in turn)
          for (const [i, call] of turn.calls.entries())
            content.push({
              toolUse: {
                toolUseId: `tooluse_${ids}_${request.index + 1}_${i}`,
                name: call.name,
                input: call.input,
              },
            });
        return Response.json({
          output: { message: { role: 'assistant', content } },
          stopReason: 'calls' in turn && turn.calls.length > 0 ? 'tool_use' : 'end_turn',
          // inputTokens excludes cache reads and writes, as on Anthropic.
          usage: {
            inputTokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
            outputTokens: usage.outputTokens,
            totalTokens: usage.inputTokens + usage.outputTokens,
            cacheReadInputTokens: usage.cacheReadTokens,
            cacheWriteInputTokens: usage.cacheWriteTokens,
          },
          metrics: { latencyMs: 1 },
        });
      },
    },
    options,
  );
}

/**
 * Violations of Converse's structural rules, worded after Bedrock's ValidationExceptions:
 * - "A conversation must start with a user message.";
 * - "A conversation must alternate between user and assistant roles.";
 * - "Expected toolResult blocks at messages.N.content for the following Ids: ID" (each toolUse
 *   answered in the next user message);
 * - "The number of toolResult blocks at messages.N.content exceeds the number of toolUse blocks
 *   of previous turn." (no result without its call);
 * - "The text field in the ContentBlock object at messages.N.content.M is blank."
 */
export function bedrockRuleViolations(body: WireBody): string[] {
  const out: string[] = [];
  const messages = arrayOf(body.messages).filter(isRecord);
  if (messages[0] && messages[0].role !== 'user') out.push('A conversation must start with a user message.');
  // toolUse and toolResult blocks both carry the call's `toolUseId`.
  const ids = (m: Record<string, unknown> | undefined, key: 'toolUse' | 'toolResult') =>
    arrayOf(m?.content)
      .filter(isRecord)
      .flatMap((b) => (isRecord(b[key]) ? [textOf((b[key] as WireBody).toolUseId)] : []));
  messages.forEach((message, n) => {
    if (n > 0 && messages[n - 1]?.role === message.role)
      out.push(`messages.${n}: A conversation must alternate between user and assistant roles.`);
    arrayOf(message.content)
      .filter(isRecord)
      .forEach((block, m) => {
        if (typeof block.text === 'string' && block.text.trim() === '')
          out.push(`The text field in the ContentBlock object at messages.${n}.content.${m} is blank.`);
      });
    const uses = ids(message, 'toolUse');
    if (uses.length > 0) {
      const answered = new Set(ids(messages[n + 1], 'toolResult'));
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0)
        out.push(
          `Expected toolResult blocks at messages.${n + 1}.content for the following Ids: ${missing.join(', ')}`,
        );
    }
    const results = ids(message, 'toolResult');
    if (results.length > 0) {
      const called = new Set(ids(messages[n - 1], 'toolUse'));
      if (results.some((id) => !called.has(id)))
        out.push(
          `The number of toolResult blocks at messages.${n}.content exceeds the number of toolUse blocks of previous turn.`,
        );
    }
  });
  return out;
}

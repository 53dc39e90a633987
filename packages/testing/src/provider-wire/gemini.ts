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
  type WireTurn,
} from './common.ts';

/** Per-content framing (role and turn markers): provider-like, not a published figure. */
const CONTENT_OVERHEAD = 4;
/** Gemini's fixed cost of an image up to 384px on both sides (larger ones are tiled at 258 a tile). */
const IMAGE_TOKENS = 258;

function partText(part: Record<string, unknown>): string {
  if (typeof part.text === 'string') return part.text;
  if (isRecord(part.functionCall)) return textOf(part.functionCall.name) + textOf(part.functionCall.args);
  if (isRecord(part.functionResponse))
    return textOf(part.functionResponse.name) + textOf(part.functionResponse.response);
  return '';
}

/**
 * Gemini's input count of a generateContent body, provider-like: cl100k_base over the system
 * instruction, the function declarations and every part (function calls and responses as
 * JSON), 4 tokens a content, 258 an inline image.
 */
export function geminiCount(body: WireBody): number {
  const system = isRecord(body.systemInstruction) ? arrayOf(body.systemInstruction.parts) : [];
  const declarations = arrayOf(body.tools).flatMap((t) =>
    isRecord(t) ? arrayOf(t.functionDeclarations) : [],
  );
  let total = countText(
    system.filter(isRecord).map(partText).join('\n') + textOf(declarations.length ? declarations : ''),
  );
  for (const content of arrayOf(body.contents)) {
    if (!isRecord(content)) continue;
    const parts = arrayOf(content.parts).filter(isRecord);
    const images = parts.filter((p) => isRecord(p.inlineData) || isRecord(p.fileData)).length;
    total += CONTENT_OVERHEAD + countText(parts.map(partText).join('')) + IMAGE_TOKENS * images;
  }
  return total;
}

function candidateParts(turn: WireTurn): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = turn.text ? [{ text: turn.text }] : [];
  if ('calls' in turn)
    for (const call of turn.calls) parts.push({ functionCall: { name: call.name, args: call.input } });
  return parts;
}

/**
 * A `fetch` answering as the Gemini API (`models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` as server-sent chunks); a request whose input exceeds the
 * window less the requested `maxOutputTokens` is refused with Gemini's 400 `INVALID_ARGUMENT`
 * "The input token count (N) exceeds the maximum number of tokens allowed (W)." (Gemini limits
 * input on its own; the stub's limit is the window less the output the request asks for, so a
 * test holds the same guarantee on every provider).
 *
 * @example
 * const wire = geminiWire({ contextWindow: 32_000 });
 * const google = createGoogleGenerativeAI({ apiKey: 'test', fetch: wire.fetch });
 * await generateText({ model: google('gemini-2.5-flash'), prompt: 'hi' });
 */
export function geminiWire(options: ProviderWireOptions = {}): ProviderWire {
  return createWire(
    {
      count: geminiCount,
      maxOutputTokens: (body) =>
        isRecord(body.generationConfig) && typeof body.generationConfig.maxOutputTokens === 'number'
          ? body.generationConfig.maxOutputTokens
          : undefined,
      stream: (url) => url.includes(':streamGenerateContent'),
      refuse: ({ inputTokens, maxOutputTokens, window }) =>
        Response.json(
          {
            error: {
              code: 400,
              message: `The input token count (${inputTokens}) exceeds the maximum number of tokens allowed (${window - (maxOutputTokens ?? 0)}).`,
              status: 'INVALID_ARGUMENT',
            },
          },
          { status: 400 },
        ),
      answer: ({ request, turn, usage }) => {
        const usageMetadata = {
          promptTokenCount: usage.inputTokens,
          candidatesTokenCount: usage.outputTokens,
          totalTokenCount: usage.inputTokens + usage.outputTokens,
          ...(usage.cacheReadTokens > 0 && { cachedContentTokenCount: usage.cacheReadTokens }),
        };
        const candidate = (parts: unknown[], finishReason?: string) => ({
          content: { role: 'model', parts },
          ...(finishReason && { finishReason }),
          index: 0,
        });
        const modelVersion = textOf(/models\/([^:]+):/.exec(request.url)?.[1]);
        const parts = candidateParts(turn);
        if (!request.stream)
          return Response.json({ candidates: [candidate(parts, 'STOP')], usageMetadata, modelVersion });
        // One chunk a part, the last carrying finishReason and the usage.
        return sseResponse(
          parts.map((part, i) => ({
            data: {
              candidates: [candidate([part], i === parts.length - 1 ? 'STOP' : undefined)],
              ...(i === parts.length - 1 && { usageMetadata }),
              modelVersion,
            },
          })),
        );
      },
    },
    options,
  );
}

/**
 * Violations of Gemini's structural rules, worded after its 400 INVALID_ARGUMENT messages:
 * - "Please ensure that function call turn comes immediately after a user turn or after a
 *   function response turn.";
 * - "Please ensure that the number of function response parts is equal to the number of
 *   function call parts of the function call turn." (Gemini pairs them by position and name:
 *   the response turn right after the call turn answers each call by name);
 * - "contents.parts must not be empty"; a function response turn with no call turn before it.
 */
export function geminiRuleViolations(body: WireBody): string[] {
  const out: string[] = [];
  const contents = arrayOf(body.contents).filter(isRecord);
  if (contents.length === 0) out.push('contents is not specified');
  const calls = (c: Record<string, unknown> | undefined) =>
    arrayOf(c?.parts)
      .filter(isRecord)
      .flatMap((p) => (isRecord(p.functionCall) ? [textOf(p.functionCall.name)] : []));
  const responses = (c: Record<string, unknown> | undefined) =>
    arrayOf(c?.parts)
      .filter(isRecord)
      .flatMap((p) => (isRecord(p.functionResponse) ? [textOf(p.functionResponse.name)] : []));
  contents.forEach((content, n) => {
    const parts = arrayOf(content.parts).filter(isRecord);
    if (parts.length === 0) out.push(`contents[${n}].parts: contents.parts must not be empty`);
    if (parts.some((p) => p.text === '')) out.push(`contents[${n}].parts: a text part must not be empty`);
    const called = calls(content);
    if (called.length > 0) {
      const previous = contents[n - 1];
      if (n > 0 && previous?.role !== 'user' && responses(previous).length === 0)
        out.push(
          `contents[${n}]: Please ensure that function call turn comes immediately after a user turn or after a function response turn.`,
        );
      const answered = responses(contents[n + 1]);
      if (answered.length !== called.length || [...called].sort().join() !== [...answered].sort().join())
        out.push(
          `contents[${n}]: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.`,
        );
    }
    if (responses(content).length > 0 && calls(contents[n - 1]).length === 0)
      out.push(`contents[${n}]: function response parts without a function call turn before them`);
  });
  return out;
}

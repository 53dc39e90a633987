/** What a provider said when it rejected a request as too long. */
export interface OverflowReport {
  /** Tokens the provider counted, when it said. */
  tokens?: number;
  /** The provider's limit, when it said. */
  limit?: number;
  message: string;
}

const PATTERNS: RegExp[] = [
  /context[_ ]length[_ ]exceeded/i, // OpenAI code (chat and responses)
  /maximum context length/i, // OpenAI message, and OpenAI-compatible servers (vLLM, DeepSeek, Azure)
  /prompt is too long/i, // Anthropic
  /input length and .{0,3}max_tokens.{0,3} exceed context limit/i, // Anthropic, input + max_tokens over the window
  /input (?:token count|is too long).{0,200}?exceeds/i, // Google Gemini
  /input is too long for (?:the )?requested model/i, // Amazon Bedrock ValidationException
  /exceeds? (?:the )?(?:maximum|max) (?:number of )?(?:input )?tokens/i,
  /exceeds the context window/i, // OpenAI Responses
  /too many (?:input |total )?tokens/i, // Bedrock, Cohere
  /context window (?:is |was )?exceeded/i,
  /too large for model with \d{1,9} maximum context length/i, // Mistral
  /maximum prompt length is \d{1,9}/i, // xAI
  /exceeds the available context size|exceed_context_size_error/i, // llama.cpp server
  /exceeded max context length/i, // Ollama
  /request_too_large/i, // Anthropic 413
  /reduce the length of the messages/i,
];

// Every repetition is bounded and a number starts only where a run of digits starts: an error
// body is provider (or attacker) text, and an unbounded `.*` or digit run made parsing a 109 KB
// body quadratic (11-17 s with the event loop blocked).
const NUMBER = '(?<![\\d,])(\\d[\\d,]{0,15})';
/** Where a provider's message says its count and its limit: `tokens` and `limit` are match groups. */
const NUMBERS: Array<{ pattern: RegExp; tokens: number; limit: number | ((m: RegExpExecArray) => number) }> =
  [
    // Anthropic: "input length and `max_tokens` exceed context limit: 28129 + 4096 > 32000": the
    // input may hold the window minus the output the request asked for.
    {
      pattern: new RegExp(`${NUMBER} \\+ ${NUMBER} > ${NUMBER}`),
      tokens: 1,
      limit: (m) => toNumber(m[3]!) - toNumber(m[2]!),
    },
    { pattern: new RegExp(`${NUMBER} tokens? > ${NUMBER}`), tokens: 1, limit: 2 }, // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
    // OpenAI-compatible servers say what the messages hold apart from the completion.
    {
      pattern: new RegExp(
        `maximum context length is ${NUMBER} tokens.{0,300}?\\(${NUMBER} in the messages`,
        'i',
      ),
      tokens: 2,
      limit: 1,
    },
    {
      pattern: new RegExp(
        `maximum context length is ${NUMBER} tokens.{0,300}?(?:resulted in|requested) ${NUMBER}`,
        'i',
      ),
      tokens: 2,
      limit: 1,
    }, // OpenAI (limit first)
    {
      pattern: new RegExp(
        `input token count \\(${NUMBER}\\) exceeds the maximum number of tokens allowed \\(${NUMBER}\\)`,
        'i',
      ),
      tokens: 1,
      limit: 2,
    }, // Gemini
    {
      pattern: new RegExp(
        `prompt contains ${NUMBER} tokens.{0,100}?too large for model with ${NUMBER} maximum`,
        'i',
      ),
      tokens: 1,
      limit: 2,
    }, // Mistral
    {
      pattern: new RegExp(
        `maximum prompt length is ${NUMBER} but the request contains ${NUMBER} tokens`,
        'i',
      ),
      tokens: 2,
      limit: 1,
    }, // xAI
  ];
/** Characters of one error string that are searched: provider messages are short, bodies are not. */
const MAX_TEXT = 64 * 1024;

const toNumber = (s: string) => Number(s.replace(/,/g, ''));

/** Every string an error carries (message, code, type, nested cause/error/data/responseBody), breadth-first. */
function strings(error: unknown): string[] {
  const out: string[] = [];
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && out.length < 50) {
    const value = queue.shift();
    if (typeof value === 'string') {
      out.push(value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value);
      if (value.startsWith('{')) {
        try {
          queue.push(JSON.parse(value));
        } catch {
          // not JSON: the text itself was kept
        }
      }
      continue;
    }
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    const record = value as Record<string, unknown>;
    for (const field of [
      'name',
      'message',
      'code',
      'type',
      'status',
      'cause',
      'error',
      'data',
      'responseBody',
      'body',
      'lc_error_code',
    ]) {
      let inner: unknown;
      try {
        inner = record[field];
      } catch {
        continue; // a throwing getter: the error still has its other fields
      }
      if (typeof inner === 'number') out.push(String(inner));
      else if (inner !== undefined) queue.push(inner);
    }
  }
  return out;
}

/**
 * Recognises a provider's context-length error by its shape alone (no SDK import): OpenAI
 * `context_length_exceeded` (chat and responses), Anthropic "prompt is too long: N tokens > M
 * maximum" and "input length and `max_tokens` exceed context limit: N + O > W" and its 413
 * `request_too_large`, Google "input token count (N) exceeds the maximum", Bedrock "Input is
 * too long for requested model", Mistral, xAI, OpenAI-compatible servers (vLLM, llama.cpp,
 * Ollama), LangChain `ContextOverflowError`, also when wrapped by the AI SDK's `APICallError`
 * (`responseBody`, `data`) or in `cause` chains.
 */
export function detectContextOverflow(error: unknown): OverflowReport | undefined {
  const texts = strings(error);
  const byName = texts.some((t) => t === 'ContextOverflowError' || t === 'CONTEXT_OVERFLOW');
  const matched = texts.find((t) => PATTERNS.some((p) => p.test(t)));
  if (!byName && matched === undefined) return undefined;
  const report: OverflowReport = {
    message: (matched ?? texts.find((t) => t.length > 20) ?? 'context overflow').slice(0, 300),
  };
  for (const text of texts) {
    for (const { pattern, tokens, limit } of NUMBERS) {
      const m = pattern.exec(text);
      if (!m) continue;
      return {
        ...report,
        tokens: toNumber(m[tokens]!),
        limit: typeof limit === 'number' ? toNumber(m[limit]!) : limit(m),
      };
    }
  }
  return report;
}

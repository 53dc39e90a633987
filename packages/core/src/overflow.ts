/** What a provider said when it rejected a request as too long. */
export interface OverflowReport {
  /** Tokens the provider counted, when it said. */
  tokens?: number;
  /** The provider's limit, when it said. */
  limit?: number;
  message: string;
}

const PATTERNS: RegExp[] = [
  /context[_ ]length[_ ]exceeded/i, // OpenAI code
  /maximum context length/i, // OpenAI message
  /prompt is too long/i, // Anthropic
  /input (?:token count|is too long).{0,200}?exceeds/i, // Google Gemini
  /exceeds? (?:the )?(?:maximum|max) (?:number of )?(?:input )?tokens/i,
  /too many (?:input )?tokens/i,
  /context window (?:is |was )?exceeded/i,
  /request_too_large/i, // Anthropic 413
  /reduce the length of the messages/i,
];

// Every repetition is bounded and a number starts only where a run of digits starts: an error
// body is provider (or attacker) text, and an unbounded `.*` or digit run made parsing a 109 KB
// body quadratic (11-17 s with the event loop blocked).
const NUMBER = '(?<![\\d,])(\\d[\\d,]{0,15})';
const NUMBERS: RegExp[] = [
  new RegExp(`${NUMBER} tokens? > ${NUMBER}`), // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  new RegExp(`maximum context length is ${NUMBER} tokens.{0,300}?(?:resulted in|requested) ${NUMBER}`, 'i'), // OpenAI (limit first)
  new RegExp(
    `input token count \\(${NUMBER}\\) exceeds the maximum number of tokens allowed \\(${NUMBER}\\)`,
    'i',
  ), // Gemini
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
 * `context_length_exceeded`, Anthropic "prompt is too long: N tokens > M maximum", Google
 * "input token count (N) exceeds the maximum", LangChain `ContextOverflowError`, also when
 * wrapped by the AI SDK's `APICallError` (`responseBody`, `data`) or in `cause` chains.
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
    const anthropic = NUMBERS[0]!.exec(text);
    if (anthropic) return { ...report, tokens: toNumber(anthropic[1]!), limit: toNumber(anthropic[2]!) };
    const openai = NUMBERS[1]!.exec(text);
    if (openai) return { ...report, tokens: toNumber(openai[2]!), limit: toNumber(openai[1]!) };
    const gemini = NUMBERS[2]!.exec(text);
    if (gemini) return { ...report, tokens: toNumber(gemini[1]!), limit: toNumber(gemini[2]!) };
  }
  return report;
}

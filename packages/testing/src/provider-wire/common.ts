import { gptTokenizer } from '@baton/core';

/** A request body as the provider package serialised it, parsed back from JSON. */
export type WireBody = Record<string, unknown>;

/** What the scripted model answers to one request: a text, or tool calls (with an optional text before them). */
export type WireTurn = { text: string } | { calls: Array<{ name: string; input: unknown }>; text?: string };

/** What a script is told about the request it answers. */
export interface WireScriptInput {
  /** 0-based position of this request among all requests this fetch received (refused ones included). */
  index: number;
  url: string;
  body: WireBody;
}

/** Cache figures a test reports for one request; they are carved out of its input count. */
export interface WireCacheUsage {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** One request as the stub received and judged it. */
export interface WireRequest {
  index: number;
  url: string;
  body: WireBody;
  /** The input tokens the stub counted for it (cache included): what a provider would bill. */
  inputTokens: number;
  /** The output limit the body asked for, `undefined` when it set none. */
  maxOutputTokens: number | undefined;
  stream: boolean;
  /** Refused with the provider's overflow error (input + requested output over the window). */
  refused: boolean;
  /** What the script answered (absent when refused). */
  turn?: WireTurn;
}

/** Options every wire stub takes. */
export interface ProviderWireOptions {
  /**
   * The answer to each request. Default: the text `answer <n>` (n = index + 1).
   */
  script?: (request: WireScriptInput) => WireTurn;
  /**
   * The model's context window. A request whose input plus requested output exceeds it is
   * refused with the provider's own overflow error. Default: none (nothing is refused).
   */
  contextWindow?: number;
  /**
   * The input count of a body. Default: the provider-like count of each format (cl100k_base
   * over the text the body carries plus per-message overhead; see each stub).
   */
  count?: (body: WireBody) => number;
  /** Cache read / write tokens to report for a request. Default: 0 and 0. */
  cacheUsage?: (request: { index: number; body: WireBody; inputTokens: number }) => WireCacheUsage;
  /**
   * What the ids the stub answers with carry after their kind: `toolu_<idPrefix>_3_0` is the
   * first tool call of the third answer. Default `'stub'`: every wire answers with the same ids,
   * which keeps counts repeatable. Give each wire its own (`randomUUID()`) where the host keeps
   * tool calls across wires (Mastra Memory or a LangGraph checkpointer over a process restart):
   * a host that matches results to calls by id would otherwise pair a new call with an old result.
   */
  idPrefix?: string;
}

/** A stub provider: the `fetch` to hand the provider package and every request it received. */
export interface ProviderWire {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  requests: WireRequest[];
}

const cl100k = gptTokenizer('cl100k_base');

/** cl100k_base tokens of a text: a tokenizer close to, but not the same as, Baton's o200k default. */
export function countText(text: string): number {
  return cl100k.count(text);
}

/** The text of a JSON value a provider tokenizes: strings as they are, anything else as JSON. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A server-sent event stream as a Response body. */
export function sseResponse(events: Array<{ event?: string; data: unknown }>): Response {
  const text = events
    .map(({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${textOf(data)}\n\n`)
    .join('');
  return new Response(text, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  });
}

/** How one wire format reads a request and writes its answers. */
export interface WireFormatSpec {
  count: (body: WireBody) => number;
  maxOutputTokens: (body: WireBody) => number | undefined;
  stream: (url: string, body: WireBody) => boolean;
  /** The overflow refusal the provider sends (status and body exactly as it sends them). */
  refuse: (input: { inputTokens: number; maxOutputTokens: number | undefined; window: number }) => Response;
  answer: (input: {
    request: WireRequest;
    turn: WireTurn;
    /** The wire's `idPrefix`. */
    ids: string;
    usage: { inputTokens: number; outputTokens: number } & WireCacheUsage;
  }) => Response;
}

async function readRequest(input: string | URL | Request, init?: RequestInit) {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const raw = init?.body ?? (input instanceof Request ? await input.text() : undefined);
  if (typeof raw !== 'string')
    throw new TypeError(`[baton] [provider-wire] expected a JSON string body for ${url}, got ${typeof raw}`);
  const body: unknown = JSON.parse(raw);
  if (!isRecord(body))
    throw new TypeError(`[baton] [provider-wire] the body sent to ${url} is not a JSON object`);
  return { url, body };
}

/** Output tokens of a turn, counted like its input. */
function outputTokensOf(turn: WireTurn): number {
  const text =
    'calls' in turn
      ? `${turn.text ?? ''}${turn.calls.map((c) => c.name + textOf(c.input)).join('')}`
      : turn.text;
  return Math.max(1, countText(text));
}

/** The shared loop of every stub: parse, count, refuse or answer from the script, record. */
export function createWire(spec: WireFormatSpec, options: ProviderWireOptions): ProviderWire {
  const requests: WireRequest[] = [];
  const count = options.count ?? spec.count;
  const script = options.script ?? (({ index }: WireScriptInput) => ({ text: `answer ${index + 1}` }));
  const ids = options.idPrefix ?? 'stub';
  if (!/^[A-Za-z0-9-]+$/.test(ids))
    throw new TypeError(
      `[baton] [provider-wire] idPrefix: expected letters, digits and '-', received ${JSON.stringify(ids)}`,
    );
  const fetch = async function providerWireFetch(input: string | URL | Request, init?: RequestInit) {
    const { url, body } = await readRequest(input, init);
    const index = requests.length;
    const inputTokens = count(body);
    const maxOutputTokens = spec.maxOutputTokens(body);
    const window = options.contextWindow;
    const refused = window !== undefined && inputTokens + (maxOutputTokens ?? 0) > window;
    const request: WireRequest = {
      index,
      url,
      body,
      inputTokens,
      maxOutputTokens,
      stream: spec.stream(url, body),
      refused,
    };
    requests.push(request);
    if (refused) return spec.refuse({ inputTokens, maxOutputTokens, window });
    const turn = script({ index, url, body });
    request.turn = turn;
    const cache = options.cacheUsage?.({ index, body, inputTokens }) ?? {
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    return spec.answer({
      request,
      turn,
      ids,
      usage: { inputTokens, outputTokens: outputTokensOf(turn), ...cache },
    });
  };
  return { fetch, requests };
}

import type { ToolSchema } from '../contracts/prepared.ts';
import { contentHashOf, type Entry, inputText, outputText } from '../transcript/transcript.ts';
import { hash64 } from '../util/hash.ts';
import { LruCache } from '../util/lru-cache.ts';
import type { Tokenizer } from './tokenizer.ts';
import { mediaAwareOutputTokens, mediaTokens, outputMedia } from './tool-output-media.ts';

/** Tokens a chat format adds around every message (role markers, separators). */
const PER_MESSAGE = 4;
/** Tokens around each tool call / tool result inside a message. */
const PER_TOOL_PART = 3;
/** Tokens that prime the reply. */
export const PER_REQUEST = 3;
const MEMO_LIMIT = 50_000;

/** The exact counts, shared by every calibrated view of one counter (they are session-independent). */
interface CountMemo {
  byObject: WeakMap<Entry, number>;
  byContent: LruCache<string, number>;
  byText: LruCache<string, number>;
}

/**
 * Exact per-entry token counts, memoized on the entry object (WeakMap) and by content hash,
 * multiplied by a calibration ratio learnt from what the provider reported. The ratio belongs
 * to one conversation (see `calibration.ts`): `withRatio` gives a session its own view over
 * the same memo, so one chat's drift never moves another's count.
 *
 * @example
 * const counter = new TokenCounter(gptTokenizer(), 512); // ratio 1: exact counts
 * const chat = counter.withRatio(1.27); // what one session learnt, same memo
 * chat.count(entry) === Math.ceil(counter.raw(entry) * 1.27);
 */
export class TokenCounter {
  private memo: CountMemo = {
    byObject: new WeakMap(),
    byContent: new LruCache(MEMO_LIMIT),
    byText: new LruCache(1_000),
  };

  constructor(
    readonly tokenizer: Tokenizer,
    /** Tokens of an opaque part that reports none and is not an image Baton can size. */
    readonly opaqueTokens: number,
    /** Provider-reported / estimated input tokens. Default 1: exact counts. */
    readonly ratio = 1,
  ) {}

  /** The same counts (and memo) calibrated by `ratio`. */
  withRatio(ratio: number): TokenCounter {
    if (ratio === this.ratio) return this;
    const view = new TokenCounter(this.tokenizer, this.opaqueTokens, ratio);
    view.memo = this.memo;
    return view;
  }

  /** Uncalibrated tokens of one entry, framing included. */
  raw(entry: Entry): number {
    const { byObject, byContent } = this.memo;
    const known = byObject.get(entry);
    if (known !== undefined) return known;
    const contentKey = contentHashOf(entry);
    let tokens = byContent.get(contentKey);
    if (tokens === undefined) {
      tokens = this.measure(entry);
      byContent.set(contentKey, tokens);
    }
    byObject.set(entry, tokens);
    return tokens;
  }

  private measure(entry: Entry): number {
    let tokens = PER_MESSAGE;
    for (const part of entry.parts) {
      switch (part.type) {
        case 'text':
          tokens += this.tokenizer.count(part.text);
          break;
        case 'tool-call':
          tokens +=
            PER_TOOL_PART + this.tokenizer.count(part.name) + this.tokenizer.count(inputText(part.input));
          break;
        case 'tool-result':
          // A structured output may carry images (a screenshot tool): counted as images, not base64 text.
          tokens +=
            PER_TOOL_PART +
            (typeof part.output === 'object' && part.output !== null
              ? mediaAwareOutputTokens(part.output, (text) => this.tokenizer.count(text), this.opaqueTokens)
              : this.tokenizer.count(outputText(part.output)));
          break;
        case 'opaque': {
          if (part.text !== undefined) tokens += this.tokenizer.count(part.text);
          else if (part.tokens !== undefined) tokens += part.tokens;
          else {
            // An image the host sent inline costs what its size costs, not a flat estimate.
            const media = outputMedia(part.value);
            tokens += media
              ? mediaTokens(media, this.opaqueTokens, (text) => this.tokenizer.count(text))
              : this.opaqueTokens;
          }
          break;
        }
      }
    }
    return tokens;
  }

  /** Takes a count measured before (persisted with the session) for content with this hash. */
  remember(contentKey: string, tokens: number): void {
    const { byContent } = this.memo;
    if (byContent.get(contentKey) === undefined) byContent.set(contentKey, tokens);
  }

  /** Uncalibrated tokens of a free text (system prompt, rendered notes), memoized by value. */
  rawText(text: string): number {
    if (text.length === 0) return 0;
    const key = text.length > 64 ? hash64(text) : text;
    const { byText } = this.memo;
    let tokens = byText.get(key);
    if (tokens === undefined) {
      tokens = this.tokenizer.count(text) + PER_MESSAGE;
      byText.set(key, tokens);
    }
    return tokens;
  }

  /** Uncalibrated tokens of the tool schemas offered with the request. */
  rawTools(tools: readonly ToolSchema[] | undefined): number {
    if (!tools || tools.length === 0) return 0;
    return this.rawText(JSON.stringify(tools));
  }

  /** Applies the calibration ratio. */
  scale(raw: number): number {
    return Math.ceil(raw * this.ratio);
  }

  /** Calibrated tokens of one entry. */
  count(entry: Entry): number {
    return this.scale(this.raw(entry));
  }

  /** Calibrated tokens of a text on its own (notes, a notice, a summary, a probe prompt). */
  text(text: string): number {
    return this.scale(this.rawText(text));
  }
}

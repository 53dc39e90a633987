import { hash64 } from './hash.ts';
import { LruCache } from './lru-cache.ts';
import type { Tokenizer } from './tokenizer.ts';
import { mediaAwareOutputTokens, mediaTokens, outputMedia } from './tool-output-media.ts';
import { contentHashOf, type Entry, inputText, outputText } from './transcript.ts';

/** A tool the model is offered; its schema costs prompt tokens too. */
export interface ToolSchema {
  name: string;
  description?: string | undefined;
  /** JSON Schema of the arguments (or any JSON-serialisable description). */
  inputSchema?: unknown;
}

/** Tokens a chat format adds around every message (role markers, separators). */
const PER_MESSAGE = 4;
/** Tokens around each tool call / tool result inside a message. */
const PER_TOOL_PART = 3;
/** Tokens that prime the reply. */
export const PER_REQUEST = 3;
const MEMO_LIMIT = 50_000;

/**
 * Exact per-entry token counts, memoized on the entry object (WeakMap) and by content hash,
 * multiplied by a calibration ratio learnt from what the provider reported.
 */
export class TokenCounter {
  private readonly byObject = new WeakMap<Entry, number>();
  private readonly byContent = new LruCache<string, number>(MEMO_LIMIT);
  private readonly byText = new LruCache<string, number>(1_000);
  /** Provider-reported / estimated input tokens, smoothed. 1 until the first observation. */
  ratio = 1;
  private observations = 0;

  constructor(
    readonly tokenizer: Tokenizer,
    /** Tokens of an opaque part that reports none and is not an image Baton can size. */
    readonly opaqueTokens: number,
  ) {}

  /** Uncalibrated tokens of one entry, framing included. */
  raw(entry: Entry): number {
    const known = this.byObject.get(entry);
    if (known !== undefined) return known;
    const contentKey = contentHashOf(entry);
    let tokens = this.byContent.get(contentKey);
    if (tokens === undefined) {
      tokens = this.measure(entry);
      this.byContent.set(contentKey, tokens);
    }
    this.byObject.set(entry, tokens);
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
    if (this.byContent.get(contentKey) === undefined) this.byContent.set(contentKey, tokens);
  }

  /** Uncalibrated tokens of a free text (system prompt, rendered notes), memoized by value. */
  rawText(text: string): number {
    if (text.length === 0) return 0;
    const key = text.length > 64 ? hash64(text) : text;
    let tokens = this.byText.get(key);
    if (tokens === undefined) {
      tokens = this.tokenizer.count(text) + PER_MESSAGE;
      this.byText.set(key, tokens);
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

  /**
   * Learns from the provider: `reported` input tokens for a request estimated at `estimatedRaw`.
   * Exponential smoothing (half weight to the newest) damps one-off outliers such as cached
   * or image-heavy requests; the ratio is clamped to a plausible range of tokenizer drift.
   */
  calibrate(estimatedRaw: number, reported: number): void {
    if (!(estimatedRaw > 0) || !(reported > 0) || !Number.isFinite(reported)) return;
    const observed = Math.min(4, Math.max(0.25, reported / estimatedRaw));
    this.ratio = this.observations === 0 ? observed : this.ratio * 0.5 + observed * 0.5;
    this.observations++;
  }

  /** The calibration learnt so far, to persist (undefined before the first observation). */
  get calibration(): { ratio: number; observations: number } | undefined {
    return this.observations > 0 ? { ratio: this.ratio, observations: this.observations } : undefined;
  }

  /**
   * Starts from a persisted calibration when this process has learnt none yet, so counts (and
   * the decisions made on them) do not drift across a restart.
   */
  resume(saved: { ratio: number; observations: number } | undefined): void {
    if (this.observations > 0 || !saved || !(saved.ratio > 0) || !Number.isFinite(saved.ratio)) return;
    this.ratio = Math.min(4, Math.max(0.25, saved.ratio));
    this.observations = Math.max(1, Math.floor(saved.observations));
  }
}

import type { ToolSchema } from '../contracts/prepared.ts';
import { PER_REQUEST, type TokenCounter } from '../tokens/token-counter.ts';
import type { Entry } from '../transcript/transcript.ts';
import { hiddenPromptTokens } from './hidden-prompt.ts';

/**
 * What one request costs, as the provider counts it: tool schemas and per-request framing
 * (with the prompt the model's provider adds for tools), the system prompt, and the
 * projection. The entries are summed once per projection (counts are memoized per entry);
 * each system-prompt variant only adds its own text.
 */
export class PromptMeasure {
  private readonly counter: TokenCounter;
  private readonly toolsRaw: number;
  private projectionRaw = 0;

  constructor(
    counter: TokenCounter,
    tools: readonly ToolSchema[] | undefined,
    projection: readonly Entry[],
    /** The model the request goes to: some add a prompt of their own for tools (see hidden-prompt.ts). */
    modelId?: string,
  ) {
    this.counter = counter;
    const hidden = hiddenPromptTokens(modelId, (tools?.length ?? 0) > 0);
    this.toolsRaw = counter.rawTools(tools) + PER_REQUEST + hidden;
    this.setProjection(projection);
  }

  /** The projection changed (a compaction): its entries are summed again. */
  setProjection(projection: readonly Entry[]): void {
    let raw = 0;
    for (const entry of projection) raw += this.counter.raw(entry);
    this.projectionRaw = raw;
  }

  /**
   * Uncalibrated count of the whole request with this system prompt and trailing notices
   * (a message of their own after the conversation): what calibration compares.
   */
  raw(system: string, trailer = ''): number {
    return this.toolsRaw + this.counter.rawText(system) + this.projectionRaw + this.counter.rawText(trailer);
  }

  /** Calibrated tokens of the whole request with this system prompt and trailing notices. */
  tokens(system: string, trailer = ''): number {
    return this.counter.scale(this.raw(system, trailer));
  }

  /** Calibrated tokens of everything but the conversation: what the ladder cannot evict. */
  overhead(system: string): number {
    return this.counter.scale(this.toolsRaw + this.counter.rawText(system));
  }

  /** Calibrated tokens of a text on its own (a notice, a summary). */
  text(text: string): number {
    return this.counter.text(text);
  }
}

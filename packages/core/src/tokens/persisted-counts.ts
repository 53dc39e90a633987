import type { BatonEventBody } from '../contracts/events.ts';
import type { Store } from '../contracts/store.ts';
import { contentHashOf, type Entry } from '../transcript/transcript.ts';
import { describeError } from '../util/errors.ts';
import type { TokenCounter } from './token-counter.ts';

const NAMESPACE = 'baton/counts';
/**
 * The counting rules the stored counts were made with: bumped whenever the counter counts the
 * same content differently (2: images by their size, not their base64 as text; 3: parts the
 * provider package never sends count 0), so counts a session stored before are recounted
 * instead of trusted.
 */
const COUNT_RULES = 3;

/**
 * The tokenizer, the counting rules and the flat cost of opaque parts: counts (and ratios
 * learnt against them) made under others are not reused.
 */
export function countRules(counter: TokenCounter): string {
  return `${counter.tokenizer.name}|rules ${COUNT_RULES}|opaque ${counter.opaqueTokens}`;
}

/** Counts written at once, at the least: a long conversation is written O(log n) times, not every call. */
const MIN_BATCH = 32;

/** The stored document: exact (uncalibrated) counts by content hash, for one tokenizer. */
interface CountsDocument {
  tokenizer: string;
  counts: Record<string, number>;
}

/**
 * A session's token counts, kept with its ledger so a new process resuming a long conversation
 * (a serverless request, a restarted worker) does not re-tokenize what was counted before:
 * exact BPE of a 5,000-message history is the bulk of a cold `prepare`. Keyed by content hash
 * and the tokenizer's name, so a changed message or another tokenizer is counted afresh. Read
 * once per process; written when the unsaved counts reach a tenth of the saved ones (at least
 * 32), so the bytes written stay linear in the conversation. A store failure only costs a
 * recount: it becomes a `store-failed` event.
 */
export class PersistedCounts {
  private saved = new Map<string, number>();
  private version = 0;
  private loaded = false;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly counter: TokenCounter,
  ) {}

  private rulesKey(): string {
    return countRules(this.counter);
  }

  /** Seeds the counter with this session's stored counts (the first call of a process only). */
  async load(emit: (event: BatonEventBody) => void): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    try {
      const stored = await this.store.getDocument<CountsDocument>(NAMESPACE, this.sessionId);
      if (!stored) return;
      this.version = stored.version;
      const { tokenizer, counts } = stored.value ?? {};
      if (tokenizer !== this.rulesKey() || typeof counts !== 'object' || counts === null) return;
      for (const [hash, tokens] of Object.entries(counts)) {
        if (!Number.isInteger(tokens) || tokens < 0) continue;
        this.saved.set(hash, tokens);
        this.counter.remember(hash, tokens);
      }
    } catch (error) {
      emit({ type: 'store-failed', operation: 'getCounts', error: describeError(error) });
    }
  }

  /** Saves the counts of `entries` not stored yet, once there are enough of them. */
  async save(entries: readonly Entry[], emit: (event: BatonEventBody) => void): Promise<void> {
    const fresh: Array<[string, number]> = [];
    for (const entry of entries) {
      const hash = contentHashOf(entry);
      if (!this.saved.has(hash)) fresh.push([hash, this.counter.raw(entry)]);
    }
    if (fresh.length < Math.max(MIN_BATCH, this.saved.size / 10)) return;
    const next = new Map([...this.saved, ...fresh]);
    const value: CountsDocument = {
      tokenizer: this.rulesKey(),
      counts: Object.fromEntries(next),
    };
    try {
      let put = await this.store.putDocument(NAMESPACE, this.sessionId, value, this.version);
      // Another worker saved its counts meanwhile: replacing them only costs a recount of what it added.
      if (!put.ok) put = await this.store.putDocument(NAMESPACE, this.sessionId, value, put.currentVersion);
      if (put.ok) {
        this.version = put.version;
        this.saved = next;
      }
    } catch (error) {
      emit({ type: 'store-failed', operation: 'putCounts', error: describeError(error) });
    }
  }
}

import type { Decision } from '../ledger/ledger.ts';
import type { Group } from '../transcript/groups.ts';
import type { Entry } from '../transcript/transcript.ts';
import type { BatonEventBody } from './events.ts';

/**
 * The settings a stage reads: the resolved options of `createBaton`, as far as stages use them.
 * (Declared here rather than taken from `ResolvedOptions`, which holds the stages themselves.)
 */
export interface StageOptions {
  /** Newest tool results never folded. */
  readonly keep: number;
  /** Newest groups the summarize stage leaves alone. */
  readonly keepRecentGroups: number;
  readonly maxSummaryTokens: number;
  readonly maxSummaryInputTokens: number;
  readonly pinnedTools: readonly string[];
  readonly contextWindow: number;
  readonly reserveOutput: number;
  readonly inputBudget: number;
  readonly warnAt: number;
  readonly compactAt: number;
  readonly targetAt: number;
  readonly truncateAt: number;
}

/** What a stage sees: the current projection, its groups and the budget, plus the engine's helpers. */
export interface StageContext {
  readonly entries: readonly Entry[];
  readonly groups: readonly Group[];
  /** Tokens of the whole request now (system, notes, tools, framing and entries). */
  readonly tokens: number;
  /** Stop once `tokens` is at or below this. */
  readonly target: number;
  /** The input budget (context window minus the output reserve). */
  readonly budget: number;
  /** Destructive stages run only above this (or above `budget`). */
  readonly truncateLimit: number;
  /** Guidance for summaries, from the compact tool or a probe. */
  readonly instruction: string | undefined;
  readonly options: StageOptions;
  /** Calibrated tokens of one entry. */
  count(entry: Entry): number;
  /** Bounded, memoized summary of a span (chunks under `maxSummaryInputTokens`, each extending the last). Throws on failure. */
  summarize(entries: Entry[], priorSummary?: string): Promise<string>;
  emit(event: BatonEventBody): void;
}

export interface StageResult {
  decisions: Decision[];
}

/** One rung of the ladder. Custom stages implement the same signature. */
export type Stage = ((ctx: StageContext) => Promise<StageResult>) & {
  readonly stageName?: string;
  /**
   * May replace (never remove) tool results that are protected or not yet seen by the model,
   * keeping their keys. Only the residual `degrade` stage sets it; the session then tells the agent.
   */
  readonly degrades?: true;
  /**
   * Removes history outright (what it takes leaves the prompt; at most a marker stays), like
   * `truncateOldest()`. The ladder then runs a later `degrades` stage on fresh results first
   * when only a preview can make room, so such a stage never destroys for nothing.
   */
  readonly destructive?: true;
};

export interface DefineStageOptions {
  /** The stage removes history outright (see `Stage.destructive`). Default: false. */
  destructive?: boolean;
}

/**
 * Names a stage function (the name appears in events and the ledger); `destructive: true`
 * declares a stage that removes history, so the ladder orders it after previews of fresh results.
 *
 * @example
 * const dropImages = defineStage('drop-images', async (ctx) => ({ decisions: [] }));
 * const dropOldTurns = defineStage('drop-old-turns', dropRun, { destructive: true });
 */
export function defineStage(
  name: string,
  run: (ctx: StageContext) => Promise<StageResult>,
  { destructive = false }: DefineStageOptions = {},
): Stage {
  const stage = Object.assign(async (ctx: StageContext) => run(ctx), { stageName: name });
  return destructive ? Object.assign(stage, { destructive: true as const }) : stage;
}

const BUILT_IN = Symbol('baton.builtInStage');

/** Baton's own stages read the projection in place; any other stage is user code and gets a copy. */
export function builtInStage(
  name: string,
  run: (ctx: StageContext) => Promise<StageResult>,
  options: DefineStageOptions = {},
): Stage {
  return Object.assign(defineStage(name, run, options), { [BUILT_IN]: true });
}

export function isBuiltInStage(stage: Stage): boolean {
  return (stage as { [BUILT_IN]?: boolean })[BUILT_IN] === true;
}

export function stageNameOf(stage: Stage): string {
  return stage.stageName ?? (stage.name || 'custom-stage');
}

/** Shared by stages: walks candidates oldest first and reports whether the target is already met. */
export class FreedTokens {
  private freed = 0;
  constructor(private readonly ctx: StageContext) {}
  add(tokens: number): void {
    this.freed += tokens;
  }
  get remaining(): number {
    return this.ctx.tokens - this.freed;
  }
  get reachedTarget(): boolean {
    return this.remaining <= this.ctx.target;
  }
}

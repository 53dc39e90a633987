import { randomUUID } from 'node:crypto';
import type { Baton, CallOutput, Session, ToolSchema } from '@baton/core';
import { LruCache, type UnfitInfo } from '@baton/core/internals';
import { epochOf } from './message-seqs.ts';
import type { ThreadScope } from './working-memory-notes.ts';

/** What one run (`generate` / `stream`) keeps in the processor's per-request state. */
export interface RunState {
  session?: Session;
  scope?: ThreadScope;
  tools?: ToolSchema[];
  /** This step ends as `unfit`: the model is not called; processOutputStep records the outcome. */
  unfit?: UnfitInfo | undefined;
  /** Working memory as a compaction of this run last rendered it (Mastra's own, from the run start, until then). */
  workingMemoryShown?: string;
  /** When the memory thread was created: the origin of its messages' seqs. */
  epoch?: number;
  /** This step's model and output limit, as processInputStep saw them (before Baton's cap). */
  output?: CallOutput;
  /** The provider-side compaction the step's providerOptions turn on (told once per session). */
  providerCompaction?: string | undefined;
}

/** What every processor hook is given that names its run. */
export interface RunArgs {
  state: Record<string, unknown>;
  requestContext?: { get(key: string): unknown };
  runId?: unknown;
}

interface MemoryContext {
  thread?: { id?: string; createdAt?: unknown };
  resourceId?: string;
}

/**
 * The session of a run without a memory thread: its own, named by Mastra's run id when the
 * hook is given one (the agent loop passes none today) or a fresh id, so two such runs never
 * share notes, notices or an archive.
 */
function runSessionId(args: { runId?: unknown }): string {
  return `run:${typeof args.runId === 'string' && args.runId.length > 0 ? args.runId : randomUUID()}`;
}

/** The memory context of the run: Mastra puts it in the request context under `MastraMemory`. */
function memoryContextOf(args: {
  requestContext?: { get(key: string): unknown };
}): MemoryContext | undefined {
  return args.requestContext?.get('MastraMemory') as MemoryContext | undefined;
}

/** The memory thread of the run. */
function scopeOf(memory: MemoryContext | undefined, run: RunState): ThreadScope | undefined {
  const threadId = memory?.thread?.id;
  if (typeof threadId === 'string' && threadId.length > 0) {
    return { threadId, ...(memory?.resourceId ? { resourceId: memory.resourceId } : {}) };
  }
  return run.scope;
}

/**
 * Which Baton session a Mastra run belongs to (session identity: one conversation, one
 * session): its memory thread's, or a run-scoped one of its own, never a shared default. Keeps
 * each thread's resource (bounded like the core's sessions) for resource-scoped working memory.
 *
 * @example
 * const runs = new RunSessions(core);
 * const run = runs.of(args); // run.session, run.scope, run.epoch set on the first hook of a run
 */
export class RunSessions {
  private readonly scopes: LruCache<string, ThreadScope>;

  constructor(private readonly core: Baton) {
    this.scopes = new LruCache(core.options.maxSessions);
  }

  /** The run's state (Mastra's per-request `state`), its session resolved on the first hook. */
  of(args: RunArgs): RunState {
    const run = args.state as RunState;
    if (!run.session) {
      const memory = memoryContextOf(args);
      const scope = scopeOf(memory, run);
      if (scope) {
        run.scope = scope;
        run.epoch = epochOf(memory?.thread);
        this.scopes.set(scope.threadId, scope);
      }
      run.session = this.core.session(scope?.threadId ?? runSessionId(args));
    }
    return run;
  }

  /** The memory scope of a session: its thread, with the resource a run of it was given. */
  scopeOf(sessionId: string): ThreadScope {
    return this.scopes.get(sessionId) ?? { threadId: sessionId };
  }
}

export { filler } from '@baton/testing';

import {
  createEntry,
  type Entry,
  type HostModel,
  type Notice,
  type Part,
  type Prepared,
  type Session,
} from '@baton/core';

/** What a scripted model sees at one step: exactly what Baton would send. */
export interface ModelView {
  entries: Entry[];
  system: string;
  notices: Notice[];
  step: number;
  /** Everything the model sees, as one string (for "is X visible" checks). */
  visible: string;
}

export type ModelTurn = { calls: Array<{ name: string; input: unknown }>; say?: string } | { done: string };

export type ScriptedModel = (view: ModelView) => ModelTurn;
export type ToolImplementations = Record<string, (input: unknown) => unknown>;

export interface LoopResult {
  history: Entry[];
  prepared: Prepared[];
  calls: Array<{ name: string; input: unknown; output: unknown; isError: boolean }>;
  finished: boolean;
  final?: string;
  /** The prepared call that ended the turn with `unfit`, if any. */
  unfit?: Prepared;
}

/**
 * Drives a session like an adapter would: prepare before every model call, let the scripted
 * model act on exactly the projection, run the tools it calls (Baton's own through
 * `session.tools`), append everything to the host history. Stops on `done`, on `unfit`
 * (the turn ends gracefully) or after `maxSteps`.
 */
export async function runAgentLoop(options: {
  session: Session;
  system?: string;
  history: Entry[];
  model: ScriptedModel;
  tools?: ToolImplementations;
  maxSteps: number;
  /** The host model as an adapter would pass it (probes, continuation summaries). */
  hostModel?: HostModel;
}): Promise<LoopResult> {
  const { session, model, maxSteps } = options;
  const history = [...options.history];
  const result: LoopResult = { history, prepared: [], calls: [], finished: false };
  const batonTools = new Map(session.tools.map((t) => [t.name, t]));
  for (let step = 0; step < maxSteps; step++) {
    const prepared = await session.prepare({
      entries: history,
      ...(options.system ? { system: options.system } : {}),
      ...(options.hostModel ? { model: options.hostModel } : {}),
    });
    result.prepared.push(prepared);
    if (prepared.outcome === 'unfit') {
      result.unfit = prepared;
      return result;
    }
    // What the model reads: the system prompt (notes as of the last compaction), the
    // conversation, then this step's notices.
    const visible = `${prepared.system}\n${JSON.stringify(prepared.entries.map((e) => e.parts))}\n${prepared.trailer}`;
    const turn = model({
      entries: prepared.entries,
      system: prepared.system,
      notices: prepared.notices,
      step,
      visible,
    });
    if ('done' in turn) {
      history.push(createEntry(history.length, 'assistant', turn.done));
      result.finished = true;
      result.final = turn.done;
      return result;
    }
    const ids = turn.calls.map((_, i) => `s${step}_${i}`);
    const parts: Part[] = turn.say ? [{ type: 'text', text: turn.say }] : [];
    turn.calls.forEach((call, i) => {
      parts.push({ type: 'tool-call', id: ids[i]!, name: call.name, input: call.input });
    });
    history.push(createEntry(history.length, 'assistant', parts));
    for (const [i, call] of turn.calls.entries()) {
      let output: unknown;
      let isError = false;
      try {
        const baton = batonTools.get(call.name);
        if (baton) output = await baton.execute(call.input);
        else if (options.tools?.[call.name]) output = await options.tools[call.name]!(call.input);
        else throw new Error(`unknown tool ${call.name}`);
      } catch (error) {
        output = error instanceof Error ? error.message : String(error);
        isError = true;
      }
      result.calls.push({ name: call.name, input: call.input, output, isError });
      history.push(
        createEntry(history.length, 'tool', [
          {
            type: 'tool-result',
            callId: ids[i]!,
            name: call.name,
            output,
            ...(isError ? { isError: true } : {}),
          },
        ]),
      );
    }
  }
  return result;
}

import type { OpenAIMessage } from '@baton/core';
import type { WireBody, WireScriptInput, WireTurn } from '@baton/testing';

/** One tool call of a corpus step, with the output the corpus recorded for it. */
interface CorpusCall {
  name: string;
  input: Record<string, unknown>;
  output: string;
}

/** One user turn of a corpus conversation: the user's messages, then the model's steps. */
export interface CorpusTurn {
  user: string[];
  /** Tool-calling steps, in order; the turn then ends on `final`. */
  steps: Array<{ text?: string; calls: CorpusCall[] }>;
  final: string;
}

/**
 * A corpus conversation replayed as an agent through a provider wire stub, whatever the
 * framework: the stub's script answers each request with the conversation's next assistant
 * step (its tool calls, the text beside them) and the host's tools answer with the outputs the
 * corpus recorded. Requests without tools (a continuation summary, a probe) get a short text
 * and do not move the script.
 */
export interface CorpusAgent {
  system?: string;
  turns: CorpusTurn[];
  toolNames: string[];
  script: (request: WireScriptInput) => WireTurn;
  /** The recorded output of a call the script made (matched by name and input), for a host tool's execute. */
  runTool: (name: string, input: unknown) => string;
  /** Scripted steps answered so far, and how many the conversation has (steps and finals). */
  progress: () => { answered: number; total: number; summaries: number };
}

const textOf = (content: OpenAIMessage['content']): string =>
  typeof content === 'string' ? content : content ? JSON.stringify(content) : '';

function inputOf(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { input: parsed };
  } catch {
    return { input: raw };
  }
}

/** Whether a body of any wire format offers the model tools. */
export function offersTools(body: WireBody): boolean {
  const tools = body.tools ?? (body.toolConfig as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/**
 * The conversation split into user turns (at most `maxTurns`, each with at most `maxSteps`
 * tool steps), for a scripted replay through a provider stub.
 */
export function corpusAgent(
  messages: readonly OpenAIMessage[],
  { maxTurns = Number.POSITIVE_INFINITY, maxSteps = Number.POSITIVE_INFINITY } = {},
): CorpusAgent {
  const outputs = new Map<string, string>();
  for (const m of messages)
    if (m.role === 'tool' && m.tool_call_id) outputs.set(m.tool_call_id, textOf(m.content));
  const turns: CorpusTurn[] = [];
  let system: string | undefined;
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') system = system ?? textOf(m.content);
    else if (m.role === 'user') {
      const last = turns.at(-1);
      // Consecutive user messages belong to the same turn (an instruction, then the task).
      if (last && last.steps.length === 0 && last.final === '') last.user.push(textOf(m.content));
      else turns.push({ user: [textOf(m.content)], steps: [], final: '' });
    } else if (m.role === 'assistant' && turns.length > 0) {
      const turn = turns.at(-1)!;
      const text = textOf(m.content).trim();
      if (m.tool_calls?.length)
        turn.steps.push({
          ...(text ? { text } : {}),
          calls: m.tool_calls.map((c) => ({
            name: c.function.name,
            input: inputOf(c.function.arguments),
            output: outputs.get(c.id) ?? '',
          })),
        });
      else turn.final = text || 'Done.';
    }
  }
  const kept = turns.slice(0, maxTurns).map((t) => ({
    ...t,
    steps: t.steps.slice(0, maxSteps),
    final: t.final || 'Done.',
  }));
  const script: WireTurn[] = kept.flatMap((t) => [
    ...t.steps.map((s) => ({
      calls: s.calls.map(({ name, input }) => ({ name, input })),
      ...(s.text ? { text: s.text } : {}),
    })),
    { text: t.final },
  ]);
  const stepCalls = kept.flatMap((t) => [...t.steps.map((s) => s.calls), []]);
  let cursor = 0;
  let summaries = 0;
  let pending: CorpusCall[] = [];
  return {
    ...(system !== undefined ? { system } : {}),
    turns: kept,
    toolNames: [...new Set(kept.flatMap((t) => t.steps.flatMap((s) => s.calls.map((c) => c.name))))].sort(),
    script: ({ body }) => {
      if (!offersTools(body)) {
        summaries++;
        return { text: 'Summary: the task, the files read and the edits made so far.' };
      }
      const turn = script[cursor];
      if (!turn) throw new Error(`[corpus-agent] request beyond the script (${script.length} steps)`);
      pending = [...(stepCalls[cursor] ?? [])];
      cursor++;
      return turn;
    },
    runTool: (name, input) => {
      const key = JSON.stringify(input);
      let at = pending.findIndex((c) => c.name === name && JSON.stringify(c.input) === key);
      if (at === -1) at = pending.findIndex((c) => c.name === name);
      if (at === -1) throw new Error(`[corpus-agent] no scripted call of ${name} is pending`);
      const [call] = pending.splice(at, 1);
      return call!.output;
    },
    progress: () => ({ answered: cursor, total: script.length, summaries }),
  };
}

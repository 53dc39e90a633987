import { createEntry, type Entry, firstLine, type Part, type ToolCallPart } from '@baton/core';
import { isObject } from './json.ts';
import {
  SCRIPTED,
  type SessionFile,
  type SessionReader,
  type ThreadInfo,
  TranscriptFormatError,
} from './session-file.ts';

/*
 * tau2-bench results JSON: `{ info, tasks, simulations: [{ id, task_id, trial, messages }] }`.
 * A simulation's messages interleave two models: the agent, and a simulated user that has tools
 * of its own (in the telecom domain it operates its phone). Only the agent's view is kept: its
 * system prompt, its messages (assistant), the user's messages (user), its tool calls and their
 * results. The user's tool calls and their results (`requestor: "user"`) never reach the agent
 * and are left out. The agent speaks first: its opening greeting is tau2's fixed first message
 * (no model call made it; its `cost` is 0), recorded as an assistant turn like the others.
 */

/**
 * tau2's LLMAgent system prompt around the domain policy, as the corpus' hand conversion of a
 * telecom run shows it (tau2-bench, MIT). Only `llm_agent` uses it; a note says when a run's
 * agent is another implementation, whose prompt adds to it.
 */
const AGENT_PROMPT_BEFORE_POLICY = `<instructions>
You are a customer service agent that helps the user according to the <policy> provided below.
During each turn you can either:
- Send a message to the user.
- Make a tool call.
IMPORTANT: You cannot do both at the same time!!
If you send text content while making a tool call, the agent will raise an error.
Text content will be sent to the user. Do not use this field for your own reasoning.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.
</instructions>
<policy>
`;
const AGENT_PROMPT_AFTER_POLICY = '\n</policy>';

/**
 * JSON as Python's `json.dumps` writes it with its defaults (`", "` and `": "`, non-ASCII as
 * `\uXXXX`): how tau2 sends tool-call arguments to the model. A float with no fraction (`2.0`)
 * comes out as `2`, JSON.parse having kept no trace of the `.0`.
 */
function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (isObject(value))
    return `{${Object.entries(value)
      .map(([key, item]) => `${pythonJsonDumps(key)}: ${pythonJsonDumps(item)}`)
      .join(', ')}}`;
  return (JSON.stringify(value) ?? 'null').replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

interface Simulation {
  id: string;
  label: string;
}

/** Why this file is not a tau2 results file, or the simulations it holds. */
function simulations(file: SessionFile): unknown[] | string {
  if (file.isSqlite) return 'a SQLite database';
  const json = file.json;
  if (!json.ok) return json.error;
  const value = json.value;
  if (!isObject(value))
    return Array.isArray(value) ? 'a list, not { info, tasks, simulations }' : 'not an object';
  if (!Array.isArray(value.simulations)) return 'no simulations list';
  if (!isObject(value.info) && !Array.isArray(value.tasks)) return 'simulations without info or tasks';
  return value.simulations;
}

function describe(simulation: unknown, index: number): Simulation {
  const sim = isObject(simulation) ? simulation : {};
  const id = typeof sim.id === 'string' ? sim.id : String(index);
  const task = typeof sim.task_id === 'string' || typeof sim.task_id === 'number' ? String(sim.task_id) : '?';
  const trial = typeof sim.trial === 'number' ? `, trial ${sim.trial}` : '';
  return { id, label: `task ${firstLine(task, 60)}${trial}` };
}

/** The agent's view of one simulation, or throws naming the message that cannot be read. */
function agentView(
  simulation: unknown,
  where: string,
  systemPrompt: string | undefined,
): { entries: Entry[]; userToolTraffic: number; unanswered: number; orphans: number } {
  if (!isObject(simulation) || !Array.isArray(simulation.messages))
    throw new TranscriptFormatError(`${where} has no messages list`);
  const drafts: { role: Entry['role']; parts: Part[]; scripted?: true }[] = [];
  if (systemPrompt !== undefined)
    drafts.push({ role: 'system', parts: [{ type: 'text', text: systemPrompt }] });
  let userToolTraffic = 0;
  let unanswered = 0;
  let orphans = 0;
  /** The agent's calls still waiting for a result. */
  let pending: ToolCallPart[] = [];
  const settle = () => {
    unanswered += pending.length;
    pending = [];
  };
  for (const [k, message] of simulation.messages.entries()) {
    const at = `${where}, message ${k}`;
    if (!isObject(message)) throw new TranscriptFormatError(`${at} is not an object`);
    const { role, content } = message;
    if (content !== null && content !== undefined && typeof content !== 'string')
      throw new TranscriptFormatError(`${at} (${String(role)}): content is not text`);
    const calls = message.tool_calls ?? [];
    if (!Array.isArray(calls))
      throw new TranscriptFormatError(`${at} (${String(role)}): tool_calls is not a list`);
    if (role === 'tool') {
      const id = typeof message.id === 'string' ? message.id : '';
      const call = pending.find((c) => id !== '' && c.id === id) ?? (id === '' ? pending[0] : undefined);
      if (message.requestor === 'user' || (message.requestor === undefined && !call)) {
        userToolTraffic++;
        continue;
      }
      if (!call) {
        orphans++;
        continue;
      }
      pending = pending.filter((c) => c !== call);
      drafts.push({
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: call.id,
            name: call.name,
            output: content ?? '',
            ...(message.error === true ? { isError: true } : {}),
          },
        ],
      });
      continue;
    }
    if (role !== 'assistant' && role !== 'user')
      throw new TranscriptFormatError(`${at}: role ${JSON.stringify(role)}, not assistant, user or tool`);
    settle();
    if (role === 'user') {
      // The user simulator's tool calls are its own; only what it says reaches the agent.
      userToolTraffic += calls.length;
      if (typeof content === 'string' && (content !== '' || calls.length === 0))
        drafts.push({ role: 'user', parts: [{ type: 'text', text: content }] });
      continue;
    }
    const parts: Part[] =
      typeof content === 'string' && (content !== '' || calls.length === 0)
        ? [{ type: 'text', text: content }]
        : [];
    for (const [n, call] of calls.entries()) {
      if (!isObject(call) || typeof call.name !== 'string')
        throw new TranscriptFormatError(`${at} (assistant): tool call ${n} has no name`);
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : `tau2-${k}-${n}`;
      // The arguments as tau2 sends them (json.dumps), so they count as the model read them.
      const part: ToolCallPart = {
        type: 'tool-call',
        id,
        name: call.name,
        input: pythonJsonDumps(call.arguments ?? {}),
      };
      parts.push(part);
      pending.push(part);
    }
    // tau2's fixed greeting: before the user spoke, and no model produced it (no usage, no raw
    // response, cost 0). A results file stripped of those fields still counts its later turns.
    const scripted =
      !drafts.some((d) => d.role === 'user') &&
      message.usage == null &&
      message.raw_data == null &&
      !message.cost;
    drafts.push({ role: 'assistant', parts, ...(scripted ? { scripted: true as const } : {}) });
  }
  // Calls still open here are the run's last act (it stopped at max steps): nothing is missing after them.
  return {
    entries: drafts.map((d, seq) => {
      const entry = createEntry(seq, d.role, d.parts);
      return d.scripted ? { ...entry, meta: { [SCRIPTED]: true } } : entry;
    }),
    userToolTraffic,
    unanswered,
    orphans,
  };
}

/**
 * Reads a tau2-bench results file (format `tau2`). Each simulation is a thread: `--thread` takes
 * its 0-based index in `simulations` (as listed) or its id; the first by default. The system
 * prompt is the run's policy (`info.environment_info.policy`) in tau2's agent template.
 *
 * @example
 * const transcript = tau2Reader.read(sessionFile('results.json'), { thread: '31' });
 */
export const tau2Reader: SessionReader = {
  format: 'tau2',
  mismatch(file) {
    const found = simulations(file);
    return typeof found === 'string' ? found : undefined;
  },
  read(file, { thread }) {
    const found = simulations(file);
    if (typeof found === 'string') throw new TranscriptFormatError(`not a tau2-bench results file: ${found}`);
    if (found.length === 0)
      throw new TranscriptFormatError('this tau2-bench results file holds no simulation');
    const results = file.json.ok && isObject(file.json.value) ? file.json.value : {};
    const info = isObject(results.info) ? results.info : {};
    const environment = isObject(info.environment_info) ? info.environment_info : {};
    const policy = typeof environment.policy === 'string' ? environment.policy : undefined;
    const system =
      policy === undefined ? undefined : AGENT_PROMPT_BEFORE_POLICY + policy + AGENT_PROMPT_AFTER_POLICY;
    const described = found.map(describe);
    const chosen = thread ?? '0';
    const index = /^\d+$/.test(chosen) ? Number(chosen) : described.findIndex((s) => s.id === chosen);
    if (!(index >= 0 && index < found.length))
      throw new TranscriptFormatError(
        `--thread: no simulation ${JSON.stringify(chosen)} in this tau2 file; it holds ${found.length} (--thread 0 to ${found.length - 1}, or a simulation id: ${described
          .slice(0, 5)
          .map((s) => s.id)
          .join(', ')}${found.length > 5 ? ', …' : ''})`,
      );
    const name = (k: number) => `simulation ${k} (${described[k]?.id})`;
    const view = agentView(found[index], name(index), system);
    const notes: string[] = [];
    if (policy === undefined) notes.push('no policy in info.environment_info: the system prompt is missing');
    const implementation = isObject(info.agent_info) ? info.agent_info.implementation : undefined;
    if (policy !== undefined && typeof implementation === 'string' && implementation !== 'llm_agent')
      notes.push(
        `system prompt rebuilt with llm_agent's template; this run's agent is ${implementation}, whose prompt adds to it`,
      );
    if (view.userToolTraffic > 0)
      notes.push(
        `${view.userToolTraffic} tool calls and results of the simulated user left out (its own phone or account tools; the agent never sees them)`,
      );
    if (view.unanswered > 0) notes.push(`${view.unanswered} agent tool calls have no recorded result`);
    if (view.orphans > 0) notes.push(`${view.orphans} tool results answer no agent call and are left out`);
    if (found.length === 1) return { format: 'tau2', entries: view.entries, notes };
    const threads: ThreadInfo[] = found.map((simulation, k) => {
      let messages = 0;
      let label: string;
      try {
        messages = k === index ? view.entries.length : agentView(simulation, name(k), system).entries.length;
        label = `${described[k]?.label} · ${messages} messages`;
      } catch (error) {
        label = `unreadable: ${(error as Error).message}`;
      }
      return { id: String(k), label: `${label} · id ${described[k]?.id}`, messages };
    });
    return { format: 'tau2', entries: view.entries, threads, thread: String(index), notes };
  },
};

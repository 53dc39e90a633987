import type { Part, ToolCallPart } from '@baton/core';
import { isObject, type Json } from './json.ts';
import { inlineImageSize, openAIImagePart } from './openai-image.ts';
import { parsePythonLiteral } from './python-literal.ts';

/*
 * smolagents' records as turns, one per chat message the model was given: the messages of
 * `agent.write_memory_to_messages()` as they are (roles system, user, assistant, tool-call:
 * "Calling tools:\n" and a Python repr of the calls, tool-response: "Observation:\n..." /
 * "Error:\n..."), or the memory steps of `agent.memory.get_full_steps()` (task, system_prompt,
 * step_number with model_output / tool_calls / observations / error, plan) turned into the same
 * messages the way smolagents' `to_messages` does. smolagents-tool-pairing.ts makes entries of
 * them.
 */

export type TurnRole = 'system' | 'user' | 'assistant' | 'tool-call' | 'tool-response';
const TURN_ROLES = new Set<string>(['system', 'user', 'assistant', 'tool-call', 'tool-response']);

/** One smolagents chat message, its content already parts. */
export interface Turn {
  role: TurnRole;
  parts: Part[];
  calls: ToolCallPart[];
  /** Where it came from, for errors: `intermediate_steps[4]`. */
  at: string;
}

/**
 * A record that could not be read: listed as a thread, refused when selected.
 *
 * @example
 * throw new RecordProblem('intermediate_steps[3]: a tool call without a name');
 */
export class RecordProblem extends Error {}

// ---------------------------------------------------------------------------------------------
// Images: OpenAI's rule, never the base64 as text.

/** Size of an image smolagents serialized: a PIL repr (`size=800x600`), a data URL, or bare base64. */
function serializedImageSize(image: unknown): { width: number; height: number } | undefined {
  if (typeof image !== 'string') return undefined;
  const pil = /\bsize=(\d+)x(\d+)\b/.exec(image.slice(0, 300));
  if (pil) return { width: Number(pil[1]), height: Number(pil[2]) };
  return inlineImageSize(image);
}

/** An image part or a task / observation image; of unknown size it is priced as 1024x1024 (765 tokens). */
function imagePart(part: Json): Part {
  const url = isObject(part.image_url) ? part.image_url : undefined;
  return openAIImagePart(part, serializedImageSize(url ? url.url : part.image), url?.detail);
}

// ---------------------------------------------------------------------------------------------
// Messages and memory steps as turns.

/** A tool call as smolagents records it: `{id, type, function: {name, arguments}}` or `{id, name, arguments}`. */
function toolCall(call: unknown, at: string): ToolCallPart {
  const fn = isObject(call) && isObject(call.function) ? call.function : call;
  if (!isObject(call) || !isObject(fn) || typeof fn.name !== 'string')
    throw new RecordProblem(`${at}: a tool call without a name`);
  // CodeAgent: the code action is the one argument of its python_interpreter call (a string).
  return { type: 'tool-call', id: String(call.id ?? ''), name: fn.name, input: fn.arguments ?? {} };
}

function contentParts(content: unknown, at: string): Part[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new RecordProblem(`${at}: content is neither text nor a list of parts`);
  return content.map((part): Part => {
    if (!isObject(part)) throw new RecordProblem(`${at}: a content part is not an object`);
    if (part.type === 'text') return { type: 'text', text: String(part.text ?? '') };
    if (part.type === 'image' || part.type === 'image_url') return imagePart(part);
    return { type: 'opaque', kind: String(part.type), value: part };
  });
}

/** The text of a turn's parts (images and other parts add nothing). */
export const textOf = (parts: readonly Part[]) =>
  parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/** A chat message of `write_memory_to_messages()`. */
function messageTurn(message: unknown, at: string): Turn {
  if (!isObject(message) || typeof message.role !== 'string' || !TURN_ROLES.has(message.role))
    throw new RecordProblem(
      `${at}: ${isObject(message) ? `role ${JSON.stringify(message.role)}` : 'not an object'}, not one of ${[...TURN_ROLES].join(', ')}`,
    );
  const role = message.role as TurnRole;
  const parts = contentParts(message.content, at);
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((c) => toolCall(c, at)) : [];
  if (role !== 'tool-call') return { role, parts, calls, at };
  const text = textOf(parts);
  const repr = /^Calling tools:\s*\n/.exec(text);
  if (!repr) throw new RecordProblem(`${at}: a tool-call message that does not start with "Calling tools:"`);
  let listed: unknown;
  try {
    listed = parsePythonLiteral(text.slice(repr[0].length));
  } catch (error) {
    throw new RecordProblem(
      `${at}: the calls after "Calling tools:" cannot be read (${(error as Error).message})`,
    );
  }
  if (!Array.isArray(listed)) throw new RecordProblem(`${at}: "Calling tools:" is not followed by a list`);
  return { role, parts: [], calls: [...calls, ...listed.map((c) => toolCall(c, at))], at };
}

const retry =
  "\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n";

/** A memory step (`get_full_steps()`) as the messages its `to_messages` gives the model. */
function stepTurns(step: unknown, at: string): Turn[] {
  if (!isObject(step)) throw new RecordProblem(`${at}: a memory step that is not an object`);
  const turn = (role: TurnRole, parts: Part[], calls: ToolCallPart[] = []): Turn => ({
    role,
    parts,
    calls,
    at,
  });
  const text = (t: string): Part[] => [{ type: 'text', text: t }];
  if (typeof step.system_prompt === 'string') return [turn('system', text(step.system_prompt))];
  if (typeof step.task === 'string') {
    const images = Array.isArray(step.task_images) ? step.task_images : [];
    return [
      turn('user', [
        ...text(`New task:\n${step.task}`),
        ...images.map((image) => imagePart({ type: 'image', image })),
      ]),
    ];
  }
  if (typeof step.plan === 'string')
    return [
      turn('assistant', text(step.plan.trim())),
      turn('user', text('Now proceed and carry out this plan.')),
    ];
  if ('output' in step && Object.keys(step).length === 1) return []; // FinalAnswerStep: nothing the model reads
  if (!('step_number' in step)) throw new RecordProblem(`${at}: not a smolagents memory step`);
  const turns: Turn[] = [];
  const output =
    step.model_output ??
    step.llm_output ??
    (isObject(step.model_output_message) ? step.model_output_message.content : null);
  if (output !== null && output !== undefined)
    turns.push(
      turn('assistant', typeof output === 'string' ? text(output.trim()) : contentParts(output, at)),
    );
  const calls = Array.isArray(step.tool_calls) ? step.tool_calls.map((c) => toolCall(c, at)) : [];
  if (calls.length > 0) turns.push(turn('tool-call', [], calls));
  const images = Array.isArray(step.observations_images) ? step.observations_images : [];
  if (images.some((image) => typeof image === 'string'))
    turns.push(
      turn(
        'user',
        images.map((image) => imagePart({ type: 'image', image })),
      ),
    );
  if (typeof step.observations === 'string')
    turns.push(turn('tool-response', text(`Observation:\n${step.observations}`)));
  if (step.error !== null && step.error !== undefined) {
    const message = isObject(step.error) ? String(step.error.message ?? '') : String(step.error);
    const callId = calls[0] ? `Call id: ${calls[0].id}\n` : '';
    turns.push(turn('tool-response', text(`${callId}Error:\n${message}${retry}`)));
  }
  return turns;
}
/**
 * The turns of one record: its chat messages, or its memory steps (with the system prompt of
 * the first step's model input when the steps leave it out; `systemFromInput` says so).
 * Throws `RecordProblem` where a message or step cannot be read.
 *
 * @example
 * const { turns } = recordTurns(record.intermediate_steps, 'intermediate_steps');
 */
export function recordTurns(steps: unknown[], field: string): { turns: Turn[]; systemFromInput?: boolean } {
  const asMessages = steps.every((s) => isObject(s) && 'role' in s && !('step_number' in s));
  if (asMessages) return { turns: steps.map((m, k) => messageTurn(m, `${field}[${k}]`)) };
  const turns = steps.flatMap((s, k) => stepTurns(s, `${field}[${k}]`));
  if (turns[0]?.role === 'system') return { turns };
  // get_full_steps() leaves the system prompt out; every step's model input starts with it.
  const input = steps.find((s) => isObject(s) && Array.isArray(s.model_input_messages));
  const first = isObject(input) ? (input.model_input_messages as unknown[])[0] : undefined;
  if (isObject(first) && first.role === 'system')
    return {
      turns: [messageTurn(first, `${field}: model_input_messages[0]`), ...turns],
      systemFromInput: true,
    };
  return { turns };
}

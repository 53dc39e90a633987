import { createEntry, type Entry, firstLine, type Part, type ToolCallPart } from '@baton/core';
import { isObject, type Json } from './json.ts';
import { inlineImageSize, openAIImagePart } from './openai-image.ts';
import { parsePythonLiteral } from './python-literal.ts';
import {
  type SessionFile,
  type SessionReader,
  type ThreadInfo,
  TranscriptFormatError,
} from './session-file.ts';

/*
 * smolagents run records. The benchmark runner (examples/smolagents_benchmark/run.py) writes one
 * JSON line per question whose `intermediate_steps` is `agent.write_memory_to_messages()`: chat
 * messages with the roles system, user, assistant, tool-call ("Calling tools:\n" and a Python
 * repr of the calls) and tool-response ("Observation:\n..." / "Error:\n..."). A dump of
 * `agent.memory.get_full_steps()` holds the memory steps themselves (task, system_prompt,
 * step_number with model_output / tool_calls / observations / error, plan); those are turned
 * into the same messages the way smolagents' `to_messages` does.
 *
 * What the model saw, with the tool structure smolagents recorded: a tool-call message becomes
 * the structured calls of the assistant turn before it (its repr text is not repeated), the
 * observation after it that call's result; a tool-response with no call before it (a CodeAgent
 * reply whose code could not be parsed) stays a user message. This agrees with the hand
 * conversions in the corpus (`sessions/openai/*smolagents*.openai.json`). smolagents itself
 * sends tool calls as assistant text and observations as user text, so a real prompt counts a
 * few tokens differently; the reader says so in a note.
 */

type TurnRole = 'system' | 'user' | 'assistant' | 'tool-call' | 'tool-response';
const TURN_ROLES = new Set<string>(['system', 'user', 'assistant', 'tool-call', 'tool-response']);

/** One smolagents chat message, its content already parts. */
interface Turn {
  role: TurnRole;
  parts: Part[];
  calls: ToolCallPart[];
  /** Where it came from, for errors: `intermediate_steps[4]`. */
  at: string;
}

/** A record that could not be read: listed as a thread, refused when selected. */
class RecordProblem extends Error {}

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

const textOf = (parts: readonly Part[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

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

/** The turns of one record: its chat messages, or its memory steps. */
function recordTurns(steps: unknown[], field: string): { turns: Turn[]; systemFromInput?: boolean } {
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

// ---------------------------------------------------------------------------------------------
// Turns as entries.

interface Draft {
  role: Entry['role'];
  parts: Part[];
}

const isErrorText = (text: string) => /^(?:Call id: [^\n]*\n)?Error:/.test(text);

/** Pairs calls with their observations; see the top of the file for the rules. */
function assemble(turns: readonly Turn[]): { drafts: Draft[]; notes: string[] } {
  const drafts: Draft[] = [];
  let strayResponses = 0;
  let sharedObservations = 0;
  let unanswered = 0;
  let movedImages = 0;
  /** The calls of the current step, the result drafts given so far, and its observation images. */
  let step: { calls: ToolCallPart[]; results: Draft[]; images: Draft[] } | undefined;
  const closeStep = (atEnd: boolean) => {
    if (!step) return;
    const missing = step.calls.slice(step.results.length);
    if (missing.length > 0 && step.results.length > 0) {
      // One observation for several calls of a step: the others answer with nothing.
      sharedObservations += missing.length;
      for (const call of missing) drafts.push(resultDraft(call, '', false));
    } else if (missing.length > 0 && !atEnd) unanswered += missing.length;
    drafts.push(...step.images);
    step = undefined;
  };
  const resultDraft = (call: ToolCallPart, text: string, isError: boolean): Draft => ({
    role: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: call.id,
        name: call.name,
        output: text,
        ...(isError ? { isError } : {}),
      },
    ],
  });
  let previous: Turn | undefined;
  for (const turn of turns) {
    if (turn.role === 'tool-response') {
      const text = textOf(turn.parts);
      if (!step) {
        strayResponses++;
        drafts.push({ role: 'user', parts: turn.parts });
      } else if (step.results.length < step.calls.length) {
        const draft = resultDraft(step.calls[step.results.length] as ToolCallPart, text, isErrorText(text));
        step.results.push(draft);
        drafts.push(draft);
      } else {
        // A second response to an answered step (an observation, then an error): the same result.
        const part = step.results.at(-1)?.parts[0];
        if (part?.type === 'tool-result') {
          part.output = `${String(part.output)}\n${text}`;
          if (isErrorText(text)) part.isError = true;
        }
      }
    } else if (turn.role === 'tool-call') {
      // The calls of the assistant turn right before; a step with no model output gets its own turn.
      const last = drafts.at(-1);
      const attach = previous?.role === 'assistant' && last?.role === 'assistant';
      if (!attach) closeStep(false);
      const target: Draft = attach ? (last as Draft) : { role: 'assistant', parts: [] };
      if (!attach) drafts.push(target);
      const known = new Set(target.parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : [])));
      target.parts.push(...turn.calls.filter((c) => !known.has(c.id)));
      const calls = target.parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
      step = { calls, results: [], images: [] };
    } else if (
      turn.role === 'user' &&
      step !== undefined &&
      step.results.length < step.calls.length &&
      turn.parts.every((p) => p.type === 'opaque')
    ) {
      // Observation images come between a call and its observation in smolagents; a result must
      // follow its call, so they move after the step's results.
      movedImages++;
      step.images.push({ role: 'user', parts: turn.parts });
    } else {
      closeStep(false);
      drafts.push({ role: turn.role, parts: [...turn.parts, ...turn.calls] });
      if (turn.role === 'assistant' && turn.calls.length > 0)
        step = { calls: turn.calls, results: [], images: [] };
    }
    previous = turn;
  }
  closeStep(true);
  const notes = [
    'smolagents sends tool calls to the model as assistant text and observations as user text; they are read as tool calls and results',
  ];
  if (strayResponses > 0)
    notes.push(
      `${strayResponses} tool response${strayResponses === 1 ? '' : 's'} with no call before ${strayResponses === 1 ? 'it' : 'them'} (code that could not be parsed) read as user messages`,
    );
  if (sharedObservations > 0)
    notes.push(
      `${sharedObservations} parallel tool call${sharedObservations === 1 ? '' : 's'} given an empty result: smolagents recorded one observation for all calls of a step (read as the first call's result)`,
    );
  if (unanswered > 0) notes.push(`${unanswered} tool calls have no recorded observation`);
  if (movedImages > 0)
    notes.push(`${movedImages} observation image messages placed after their step's tool results`);
  return { drafts, notes };
}

// ---------------------------------------------------------------------------------------------
// Records and threads.

interface RecordSource {
  value: unknown;
  /** 1-based line in a JSONL file; undefined for a single JSON document. */
  line?: number;
}

function isStepLike(value: unknown): boolean {
  return (
    isObject(value) &&
    ('step_number' in value ||
      typeof value.system_prompt === 'string' ||
      typeof value.task === 'string' ||
      value.role === 'tool-call' ||
      value.role === 'tool-response')
  );
}

/** The steps of a record, or why it has none. */
function stepsOf(record: unknown): { steps: unknown[]; field: string } | string {
  if (Array.isArray(record)) return { steps: record, field: 'steps' };
  if (!isObject(record)) return `a line is ${record === null ? 'null' : typeof record}, not a run record`;
  for (const field of ['intermediate_steps', 'steps']) {
    const steps = record[field];
    if (Array.isArray(steps)) return { steps, field };
    if (typeof steps === 'string')
      return `${field} is text (a Python repr or a plain answer, as older smolagents benchmark runners wrote it), not memory messages`;
  }
  return 'no intermediate_steps';
}

function sources(file: SessionFile): RecordSource[] | string {
  if (file.isSqlite) return 'a SQLite database';
  const json = file.json;
  if (json.ok) {
    const value = json.value;
    if (Array.isArray(value)) {
      // A bare list is ours only when it is memory steps or smolagents' own message roles;
      // an OpenAI chat array is left to its reader.
      return value.some(isStepLike) && value.every(isObject)
        ? [{ value }]
        : 'a list that holds no smolagents memory step';
    }
    const steps = stepsOf(value);
    if (typeof steps === 'string') return steps;
    if (steps.field === 'steps' && !steps.steps.some(isStepLike))
      return 'its steps are not smolagents memory steps';
    return [{ value }];
  }
  const lines = file.lines;
  if (!lines.ok) return `neither JSON nor JSONL (${lines.error})`;
  const numbers: number[] = [];
  file.text.split('\n').forEach((line, index) => {
    if (line.trim() !== '') numbers.push(index + 1);
  });
  const records = lines.value.map((value, k) => ({ value, line: numbers[k] as number }));
  const readable = records.filter((r) => {
    const steps = stepsOf(r.value);
    return typeof steps !== 'string' && steps.field === 'intermediate_steps';
  });
  if (readable.length === 0) {
    const why = stepsOf(records[0]?.value);
    return typeof why === 'string' ? `line ${records[0]?.line}: ${why}` : 'no line has intermediate_steps';
  }
  return records;
}

function recordName(source: RecordSource, index: number, count: number): string {
  if (source.line === undefined) return 'the record';
  return count > 1 ? `record ${index} (line ${source.line})` : `the record (line ${source.line})`;
}

function readRecord(source: RecordSource): { entries: Entry[]; notes: string[]; question?: string } {
  const steps = stepsOf(source.value);
  if (typeof steps === 'string') throw new RecordProblem(steps);
  if (steps.steps.length === 0)
    throw new RecordProblem(`${steps.field} is empty (the run failed before its first step)`);
  const { turns, systemFromInput } = recordTurns(steps.steps, steps.field);
  const { drafts, notes } = assemble(turns);
  if (systemFromInput) notes.push("system prompt taken from the first step's model input");
  const entries = drafts.map((d, seq) => createEntry(seq, d.role, d.parts));
  const record = isObject(source.value) ? source.value : {};
  const task = turns.find((t) => t.role === 'user');
  const question =
    typeof record.question === 'string'
      ? record.question
      : task
        ? textOf(task.parts).replace(/^New task:\s*/, '')
        : undefined;
  return { entries, notes, ...(question === undefined ? {} : { question }) };
}

/** The first words of a question, for a thread label. */
function firstWords(text: string, words = 8): string {
  const all = firstLine(text, 200).split(/\s+/).filter(Boolean);
  return all.length > words ? `${all.slice(0, words).join(' ')}…` : all.join(' ');
}

/**
 * Reads smolagents run records (format `smolagents`): a benchmark JSONL file (one record per
 * question; each record is a thread, `--thread` takes its 0-based index, the first by default),
 * a single record as JSON, or a JSON list of memory steps.
 *
 * @example
 * const transcript = smolagentsReader.read(sessionFile('gaia.jsonl'), { thread: '2' });
 */
export const smolagentsReader: SessionReader = {
  format: 'smolagents',
  mismatch(file) {
    const found = sources(file);
    return typeof found === 'string' ? found : undefined;
  },
  read(file, { thread }) {
    const found = sources(file);
    if (typeof found === 'string') throw new TranscriptFormatError(`not a smolagents run record: ${found}`);
    const results = found.map((source) => {
      try {
        return readRecord(source);
      } catch (error) {
        if (error instanceof RecordProblem) return error;
        throw error;
      }
    });
    const ids = found.map((_, index) => String(index));
    const chosen = thread ?? '0';
    const index = ids.indexOf(chosen);
    if (index < 0)
      throw new TranscriptFormatError(
        `--thread: no record ${JSON.stringify(chosen)} in this smolagents file; its records are ${ids.join(', ')}`,
      );
    const result = results[index];
    const name = recordName(found[index] as RecordSource, index, found.length);
    if (result instanceof RecordProblem)
      throw new TranscriptFormatError(`smolagents run record: ${name} cannot be read: ${result.message}`);
    if (!result) throw new TranscriptFormatError(`smolagents run record: ${name} is missing`);
    const notes = [...result.notes];
    const unreadable = results.flatMap((r, k) => (r instanceof RecordProblem ? [k] : []));
    if (unreadable.length > 0)
      notes.push(`records ${unreadable.join(', ')} cannot be read (--thread shows why)`);
    if (found.length === 1) return { format: 'smolagents', entries: result.entries, notes };
    const threads: ThreadInfo[] = results.map((r, k) =>
      r instanceof RecordProblem
        ? { id: String(k), label: `unreadable: ${firstLine(r.message, 100)}`, messages: 0 }
        : {
            id: String(k),
            label: `${r.question ? firstWords(r.question) : '(no question)'} · ${r.entries.length} messages`,
            messages: r.entries.length,
          },
    );
    return { format: 'smolagents', entries: result.entries, threads, thread: chosen, notes };
  },
};

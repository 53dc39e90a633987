import { createEntry, type Entry, firstLine } from '@baton/core';
import { isObject } from './json.ts';
import {
  type SessionFile,
  type SessionReader,
  type ThreadInfo,
  TranscriptFormatError,
} from './session-file.ts';
import { assembleTurns } from './smolagents-tool-pairing.ts';
import { RecordProblem, recordTurns, textOf } from './smolagents-turns.ts';

/*
 * smolagents run records. The benchmark runner (examples/smolagents_benchmark/run.py) writes one
 * JSON line per question whose `intermediate_steps` is `agent.write_memory_to_messages()`; a
 * dump of `agent.memory.get_full_steps()` holds the memory steps themselves. Both are read as
 * turns (smolagents-turns.ts), and the turns as entries with their tool calls paired
 * (smolagents-tool-pairing.ts). This file finds the records of a file and makes threads of them.
 */

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
  const { drafts, notes } = assembleTurns(turns);
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

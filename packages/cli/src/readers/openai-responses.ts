import { isObject } from './json.ts';
import {
  isResponsesInput,
  isResponsesItem,
  type LocatedItem,
  responsesItemsToEntries,
} from './responses-items.ts';
import { type SessionReader, TranscriptFormatError } from './session-file.ts';

/** One request and its response: `{ input, output?, instructions? }`, or `{ request: { input }, response: { output } }`. */
interface ExchangeRecord {
  input: unknown[];
  output: unknown[];
  instructions: string | undefined;
}

function asRecord(value: unknown): ExchangeRecord | undefined {
  if (!isObject(value)) return undefined;
  const request = isObject(value.request) ? value.request : value;
  const response = isObject(value.response) ? value.response : value;
  const output = Array.isArray(response.output) ? response.output : undefined;
  let input: unknown[];
  // A string input is one user message; alone it says too little to claim a file, so a response must come with it.
  if (typeof request.input === 'string' && output?.every(isResponsesItem))
    input = [{ type: 'message', role: 'user', content: request.input }];
  else if (Array.isArray(request.input) && request.input.every(isResponsesInput)) input = request.input;
  else return undefined;
  if (input.length === 0 && (output?.length ?? 0) === 0) return undefined;
  if (output && !output.every(isResponsesItem)) return undefined;
  const instructions = [request.instructions, response.instructions].find(
    (v): v is string => typeof v === 'string' && v.length > 0,
  );
  return { input, output: output ?? [], instructions };
}

type Shape = { kind: 'records'; records: ExchangeRecord[] } | { kind: 'items'; items: unknown[] };

/** The file as records or as a plain item list, or why it is neither. */
function shapeOf(value: unknown): Shape | string {
  if (isObject(value)) {
    const record = asRecord(value);
    if (record) return { kind: 'records', records: [record] };
    return 'input' in value || 'request' in value
      ? 'an object whose input is not a list of Responses items'
      : `an object without an input list (keys: ${Object.keys(value).slice(0, 6).join(', ') || 'none'})`;
  }
  if (!Array.isArray(value)) return `a JSON ${value === null ? 'null' : typeof value}`;
  if (value.length === 0) return 'an empty array';
  if (isObject(value[0]) && ('input' in value[0] || 'request' in value[0])) {
    const records = value.map(asRecord);
    const bad = records.indexOf(undefined);
    return bad < 0
      ? { kind: 'records', records: records as ExchangeRecord[] }
      : `an array whose record ${bad} is not { input, output } of Responses items`;
  }
  // OpenAI chat messages are untyped { role, content } too: a plain list must hold a typed item.
  if (value.every(isResponsesInput) && value.some(isResponsesItem)) return { kind: 'items', items: value };
  const bad = value.findIndex((v) => !isResponsesInput(v));
  return bad >= 0
    ? `an array whose item ${bad} is not a Responses item (message, function_call, ...)`
    : 'an array of role/content messages without a typed Responses item';
}

/** What identifies an item across re-sends: clients drop `id` and `status`, and may resend text as a plain string. */
function itemKey(item: unknown): string {
  if (!isObject(item)) return JSON.stringify(item);
  const type = item.type ?? 'message';
  if (type === 'message') {
    const text = Array.isArray(item.content)
      ? item.content.map((p) => (isObject(p) ? (p.text ?? p.type) : p)).join('\n')
      : item.content;
    return `message\u0000${String(item.role)}\u0000${String(text)}`;
  }
  if (typeof item.call_id === 'string') return `${String(type)}\u0000${item.call_id}`;
  const { id: _id, status: _status, ...rest } = item;
  return JSON.stringify(rest);
}

const isReasoning = (item: unknown) => isObject(item) && item.type === 'reasoning';

/**
 * Where the new items of a request start when its input repeats the conversation so far (a
 * client that re-sends the history), else undefined (a client chaining `previous_response_id`
 * sends only new items). Reasoning items are often not re-sent, so they are not compared.
 */
function newItemsStart(history: readonly string[], input: readonly unknown[]): number | undefined {
  let i = 0;
  for (const key of history) {
    while (i < input.length && isReasoning(input[i])) i++;
    if (i >= input.length || itemKey(input[i]) !== key) return undefined;
    i++;
  }
  return i;
}

/**
 * OpenAI Responses API items: one `{ input, output, instructions? }` exchange, an array of such
 * request/response records (a request log), or a plain array of items. `instructions` is the
 * system prompt. In a request log each record's input usually repeats the conversation so far:
 * only the items a record adds are read, so nothing is counted twice. Items convert through
 * `responsesItemsToEntries`, shared with the Codex reader.
 *
 * @example readSession('responses-log.json') // { format: 'openai-responses', entries }
 */
export const openAIResponsesReader: SessionReader = {
  format: 'openai-responses',
  mismatch(file) {
    if (file.isSqlite) return 'a SQLite database';
    if (!file.json.ok) return file.json.error;
    const shape = shapeOf(file.json.value);
    return typeof shape === 'string' ? shape : undefined;
  },
  read(file, options) {
    if (options.thread !== undefined)
      throw new TranscriptFormatError(
        `--thread: a Responses item file holds one conversation (no thread ${JSON.stringify(options.thread)})`,
      );
    if (!file.json.ok) throw new TranscriptFormatError(`the file is ${file.json.error}`);
    const shape = shapeOf(file.json.value);
    if (typeof shape === 'string') throw new TranscriptFormatError(`not OpenAI Responses items: ${shape}`);
    const notes: string[] = [];
    const items: LocatedItem[] = [];
    let instructions: string | undefined;
    if (shape.kind === 'items') {
      shape.items.forEach((item, index) => {
        items.push({ item, where: `Responses item ${index}` });
      });
    } else {
      const history: string[] = [];
      let resent = 0;
      let changedInstructions = 0;
      const single = shape.records.length === 1;
      shape.records.forEach((record, r) => {
        const label = single ? 'Responses ' : `Responses record ${r}, `;
        if (record.instructions !== undefined) {
          if (instructions === undefined) instructions = record.instructions;
          else if (record.instructions !== instructions) changedInstructions++;
        }
        const start = r === 0 ? 0 : newItemsStart(history, record.input);
        if (start !== undefined && r > 0) resent++;
        const added = [
          ...record.input
            .slice(start ?? 0)
            .map((item, i) => ({ item, where: `${label}input[${(start ?? 0) + i}]` })),
          ...record.output.map((item, i) => ({ item, where: `${label}output[${i}]` })),
        ];
        for (const located of added) {
          items.push(located);
          if (!isReasoning(located.item)) history.push(itemKey(located.item));
        }
      });
      if (resent > 0)
        notes.push(
          `${resent} of ${shape.records.length} records re-send the conversation so far: only the items each adds are read`,
        );
      if (changedInstructions > 0)
        notes.push(
          `the instructions change in ${changedInstructions} records; the first ones are the system prompt`,
        );
    }
    const { entries, notes: itemNotes } = responsesItemsToEntries(items, { instructions });
    return { format: 'openai-responses', entries, notes: [...notes, ...itemNotes] };
  },
};

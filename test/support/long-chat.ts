import { createEntry, type Entry, type Part } from '@baton/core';

/**
 * A long, deterministic chat: every user turn names its ticket (`T-<n>`), every fourth one
 * records a decision (`D-<n>` with a value that appears nowhere else), every third turn the
 * assistant calls a tool. Used to check that many successive compactions keep every stretch
 * of the conversation, and the users' decisions, in view.
 */
export interface LongChatTurn {
  turn: number;
  entries: Entry[];
  /** `D-<n>` and its value, when this turn records a decision. */
  decision?: { id: string; value: string };
}

const COMPONENTS = ['billing', 'search', 'auth', 'exports', 'ingest', 'alerts', 'reports', 'sync'];
const CHOICES = ['postgres', 'redis', 'kafka', 'sqlite', 'nats', 'clickhouse', 'minio', 'duckdb'];
const FILLER = [
  'the numbers from last week look steady but the dashboard still lags behind',
  'we should keep the rollout small until the on-call rotation is staffed again',
  'the vendor call moved to Thursday and nobody has the new agenda yet',
  'I read through the logs and the retries cluster around the nightly batch',
  'the staging copy is a week old so treat its figures as rough',
  'customers in the pilot asked about exports twice this month',
];

export function longChatTurn(turn: number, seqStart: number): LongChatTurn {
  const component = COMPONENTS[turn % COMPONENTS.length]!;
  const filler = FILLER[turn % FILLER.length]!;
  let seq = seqStart;
  const entries: Entry[] = [];
  let decision: LongChatTurn['decision'];
  let request = `Turn ${turn} about ticket T-${turn} on the ${component} service: ${filler}.`;
  if (turn % 4 === 0) {
    const value = `${CHOICES[(turn / 4) % CHOICES.length]}-v${turn}`;
    decision = { id: `D-${turn}`, value };
    const month = String((turn % 12) + 1).padStart(2, '0');
    request += ` Decision D-${turn}: the ${component} service uses ${value} from 2027-${month}-15 on.`;
  }
  entries.push(createEntry(seq++, 'user', request, `u${turn}`));
  if (turn % 3 === 0) {
    const call: Part = {
      type: 'tool-call',
      id: `call-${turn}`,
      name: 'lookup_ticket',
      input: { ticket: `T-${turn}` },
    };
    entries.push(createEntry(seq++, 'assistant', [call], `c${turn}`));
    const output = `T-${turn} (${component}): open since ${turn} days; ${filler}. `.repeat(8);
    entries.push(
      createEntry(
        seq++,
        'tool',
        [{ type: 'tool-result', callId: `call-${turn}`, name: 'lookup_ticket', output }],
        `r${turn}`,
      ),
    );
  }
  entries.push(
    createEntry(
      seq++,
      'assistant',
      `Noted for T-${turn}. On ${component}: ${filler}; I will keep that in mind and check it against the earlier tickets before we change anything else in this area. If the ${component} owners disagree I will bring it up at the weekly review, together with the open questions from the last incident report and the numbers from the staging copy.`,
      `a${turn}`,
    ),
  );
  return { turn, entries, ...(decision ? { decision } : {}) };
}

/** The text a model would read: system prompt, every message part, in order. */
export function promptText(system: string, entries: readonly Entry[]): string {
  const parts: string[] = [system];
  for (const entry of entries)
    for (const part of entry.parts) {
      if (part.type === 'text') parts.push(part.text);
      else if (part.type === 'tool-call') parts.push(JSON.stringify(part.input));
      else if (part.type === 'tool-result')
        parts.push(typeof part.output === 'string' ? part.output : JSON.stringify(part.output));
    }
  return parts.join('\n');
}

/** Which tenths of turns 1..turns have at least one of their ids (`T-<n>`, `D-<n>`) in the text. */
export function tenthsRepresented(text: string, turns: number): boolean[] {
  const seen = new Set([...text.matchAll(/\b[TD]-(\d+)\b/g)].map((m) => Number(m[1])));
  return Array.from({ length: 10 }, (_, tenth) => {
    const from = Math.floor((tenth * turns) / 10) + 1;
    const to = Math.floor(((tenth + 1) * turns) / 10);
    for (let n = from; n <= to; n++) if (seen.has(n)) return true;
    return false;
  });
}

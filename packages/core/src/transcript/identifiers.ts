import type { Entry } from './transcript.ts';

/**
 * The names an agent looks things up by: paths and file names, code identifiers (snake_case,
 * camelCase, PascalCase, dotted), error codes, versions and long numbers, hex ids and UUIDs, and
 * short quoted strings. Plain words are not identifiers: "the file" names nothing to find again.
 * Each rule is one pattern; the first capture group, when there is one, is the identifier.
 */
const RULES: readonly RegExp[] = [
  // Paths with a directory (src/app.ts, /etc/hosts, ./go.mod) and file names with an extension.
  /(?:\.{0,2}\/)?(?:[\w@.-]+\/)+[\w@.-]*\w/g,
  /\b[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|rst|txt|json|jsonl|ya?ml|toml|ini|cfg|conf|lock|mod|sum|sh|sql|html|css|xml|csv|log|pdf)\b/g,
  // snake_case, camelCase, PascalCase with two humps, dotted.names.
  /\b[A-Za-z]\w*_\w+\b/g,
  /\b[a-z][a-z0-9]*[A-Z]\w*\b/g,
  /\b[A-Z][a-z0-9]+[A-Z]\w*\b/g,
  /\b[A-Za-z_]\w+(?:\.[A-Za-z_]\w*)+\b/g,
  // Error and rule codes (E1101, TS2322, CVE-2024-3094, HTTP 404 is a number below).
  /\b[A-Z]{1,6}-?\d{2,}(?:-\d+)*\b/g,
  // Versions, decimals and dates (1.23, 3.14159, 2025-07-24), numbers of three digits or more.
  /\b\d+(?:[.-]\d+)+\b/g,
  /\b\d{3,}\b/g,
  // Hex ids (commit hashes, object ids) with a digit and a letter, and UUIDs.
  /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  // Short quoted strings: what an agent copies exactly (a message, a key, a command).
  /`([^`\n]{3,80})`/g,
  /"([^"\n]{3,80})"/g,
];

/** Shorter matches name nothing in particular; longer ones are content, not a name. */
const MIN_LENGTH = 3;
const MAX_LENGTH = 120;

/**
 * The identifiers in a text, each once, in order of first appearance; one inside a longer one
 * found in the same text (`page.tsx` in `src/app/page.tsx`, `2025` in `2025-07-24`) is not
 * listed apart.
 */
export function identifiersIn(text: string): string[] {
  const found = new Map<string, number>();
  for (const rule of RULES) {
    for (const match of text.matchAll(rule)) {
      const value = (match[1] ?? match[0]).replace(/[.:,;]+$/, '');
      if (value.length < MIN_LENGTH || value.length > MAX_LENGTH || !/[\w/]/.test(value)) continue;
      const at = match.index + (match[1] === undefined ? 0 : match[0].indexOf(match[1]));
      found.set(value, Math.min(at, found.get(value) ?? at));
    }
  }
  const longestFirst = [...found.keys()].sort((a, b) => b.length - a.length);
  const kept: string[] = [];
  for (const id of longestFirst) if (!kept.some((longer) => longer.includes(id))) kept.push(id);
  return kept.sort((a, b) => (found.get(a) as number) - (found.get(b) as number));
}

/**
 * Baton's own recall hints (`recallRefHint`, `recallRangeHint` in ladder/stages/spans.ts), as
 * placeholders and notices write them. Their refs are message keys (a host's UUIDs, `seq-hash`
 * keys) and seqs: the agent never looks those up by name, it calls the hint, so they are not
 * names of the text they sit in.
 */
const RECALL_HINT = /recall\(\{ "(?:ref": "(?:[^"\\]|\\.)*"|from": \d+, "to": \d+) \}\)/g;

/**
 * A bounded index of the names in a text that `shown` does not already carry, for the
 * placeholders and digests that replace it: a folded result keeps the paths, symbols and codes
 * the agent may look for, so the need to recall it is visible. '' when there are none. Recall
 * hints in the text (a summary of placeholders holds them) name nothing: an index of a run's
 * summaries spent its room on message keys (measured 2026-12-02, 2,000 messages at 32k: the
 * summaries' cost fell 0.6-0.9% without them and refs in prompt held).
 */
export function identifierIndex(text: string, shown = '', maxChars = 200): string {
  const names: string[] = [];
  let length = 0;
  // A space where a hint was: the words on either side stay apart.
  const said = text.replace(RECALL_HINT, ' ');
  // Names first (paths, symbols, codes), then quoted phrases, then bare numbers: a listing's
  // line numbers would otherwise fill the index.
  const rank = (id: string) => (/^[\d.-]+$/.test(id) ? 2 : /\s/.test(id) ? 1 : 0);
  const ranked = identifiersIn(said)
    .map((id, order) => ({ id, order }))
    .sort((a, b) => rank(a.id) - rank(b.id) || a.order - b.order);
  for (const { id } of ranked) {
    if (shown.includes(id)) continue;
    if (length + id.length + 2 > maxChars) continue;
    names.push(id);
    length += id.length + 2;
  }
  return names.join(', ');
}

/**
 * The identifiers an entry shows: its texts, and the string values of its tool-call inputs and
 * tool results (not their JSON quoting, so keys and quotes are not taken for names).
 */
export function entryIdentifiers(entry: Entry): string[] {
  const found = new Set<string>();
  const add = (text: string) => {
    for (const id of identifiersIn(text)) found.add(id);
  };
  for (const part of entry.parts) {
    if (part.type === 'text') add(part.text);
    else if (part.type === 'tool-result') for (const value of stringValues(part.output)) add(value);
    else if (part.type === 'tool-call') for (const value of stringValues(part.input)) add(value);
  }
  return [...found];
}

function stringValues(value: unknown): string[] {
  if (typeof value === 'string') {
    // Inputs often arrive as JSON text (OpenAI's arguments): read the values inside.
    if (/^\s*[[{]/.test(value)) {
      try {
        return stringValues(JSON.parse(value));
      } catch {
        return [value];
      }
    }
    return [value];
  }
  if (Array.isArray(value)) return value.flatMap(stringValues);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringValues);
  if (typeof value === 'number') return [String(value)];
  return [];
}

import { squash } from '../transcript/transcript.ts';

/**
 * The extractive summary as one document that grows by sections: each compaction appends a
 * section for the span it evicted and re-fits the whole document to its token bound. Old
 * sections are compressed (fewer, shorter lines; the most salient sentences kept longest) and, when
 * even that is too much, merged with their neighbour, never dropped: every stretch of the
 * conversation keeps a line. The text round-trips: a later compaction parses the sections
 * back out of the summary it extends.
 */
export interface SummaryLine {
  /** `- User: …`, `- Assistant: …`, `- Called …` */
  text: string;
  weight: number;
}

export interface SummarySection {
  /** Seq range of the messages the section stands for; absent for a summary Baton did not write. */
  range?: { from: number; to: number };
  lines: SummaryLine[];
}

/** The line under a summary that lists the names of its span (the summarize stage writes it). */
export const NAMES_PREFIX = 'Names in these messages: ';

export const DOCUMENT_HEADING =
  'Conversation so far, oldest first; each section names its seq range and keeps its most important points:';
const HEADING = /^## (?:seq (\d+)-(\d+)|earlier)$/;

// Lines of the newest section keep the most detail; each older section is cut shorter.
const LINE_CHARS_BY_AGE = [200, 140, 110];
const MIN_LINE_CHARS = 90;
const NEWEST_SHARE = 0.3;
const MIN_LINES_PER_SECTION = 2;

const DECISION =
  /\b(decid\w*|decision|agreed|approved|chose|choose|chosen|must|never|always|deadline|uses?|switch\w*)\b/i;
const IDENTIFIER = /\b(?:[A-Z][A-Z0-9]*-\d+|\d{4}-\d{2}-\d{2}|\w*\d\w*)\b|[\w.-]+\/[\w./-]+/;

/** How long a line should survive: users' requests, decisions, ids and dates longest. */
export function lineWeight(text: string): number {
  let weight = text.startsWith('- User:') ? 3 : text.startsWith('- Called ') ? 2 : 1;
  if (DECISION.test(text)) weight += 3;
  if (IDENTIFIER.test(text)) weight += 1;
  return weight;
}

const FILLER_WORDS = /\b(?:the|a|an)\s+/gi;

/**
 * A line cut to `max` characters, keeping its most salient sentences (decisions, ids) first.
 * Sentences left out are marked `…`; in a line still too long, articles go before the cut.
 */
export function compressLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const prefix = /^- (?:User|Assistant): /.exec(text)?.[0] ?? '- ';
  const sentences = text.slice(prefix.length).split(/(?<=[.!?;])\s+/);
  let body = text.slice(prefix.length);
  if (sentences.length > 1) {
    const ranked = sentences
      .map((sentence, index) => ({ sentence, index, salience: lineWeight(`- ${sentence}`) }))
      .sort((a, b) => b.salience - a.salience || a.index - b.index);
    const kept: typeof ranked = [];
    let length = prefix.length;
    for (const candidate of ranked) {
      if (kept.length > 0 && length + candidate.sentence.length + 2 > max) continue;
      kept.push(candidate);
      length += candidate.sentence.length + 2;
    }
    kept.sort((a, b) => a.index - b.index);
    body = `${kept[0]!.index > 0 ? '… ' : ''}${kept.map((k) => k.sentence).join(' … ')}`;
  }
  if (prefix.length + body.length > max) body = body.replace(FILLER_WORDS, '');
  return squash(`${prefix}${body}`, max);
}

/** The sections of a summary this module wrote; any other text becomes one `earlier` section. */
export function parseSummary(text: string | undefined): SummarySection[] {
  if (!text?.trim()) return [];
  const rows = text.split('\n');
  if (rows[0]?.trim() !== DOCUMENT_HEADING) {
    const lines = rows
      .map((row) => row.trim())
      .filter((row) => row.length > 0)
      .map((row) => (row.startsWith('- ') ? row : `- ${row}`))
      .map((row) => ({ text: row, weight: lineWeight(row) }));
    return lines.length > 0 ? [{ lines }] : [];
  }
  const sections: SummarySection[] = [];
  for (const row of rows.slice(1)) {
    const heading = HEADING.exec(row);
    if (heading) {
      const [, from, to] = heading;
      sections.push({
        ...(from !== undefined ? { range: { from: Number(from), to: Number(to) } } : {}),
        lines: [],
      });
    } else if (row.startsWith('- ') && sections.length > 0)
      sections.at(-1)!.lines.push({ text: row, weight: lineWeight(row) });
  }
  return sections;
}

function heading(section: SummarySection): string {
  return section.range ? `## seq ${section.range.from}-${section.range.to}` : '## earlier';
}

function merge(a: SummarySection, b: SummarySection): SummarySection {
  const range =
    a.range && b.range
      ? { from: Math.min(a.range.from, b.range.from), to: Math.max(a.range.to, b.range.to) }
      : (a.range ?? b.range);
  return { ...(range ? { range } : {}), lines: [...a.lines, ...b.lines] };
}

/** Index of the adjacent pair covering the fewest messages: merging it keeps the sections even. */
function narrowestPair(sections: readonly SummarySection[]): number {
  let best = 0;
  let bestSpan = Number.POSITIVE_INFINITY;
  for (let i = 0; i + 1 < sections.length; i++) {
    const a = sections[i]!.range;
    const b = sections[i + 1]!.range;
    const span = a && b ? b.to - a.from : -1;
    if (span < bestSpan) {
      best = i;
      bestSpan = span;
    }
  }
  return best;
}

function topLine(section: SummarySection): SummaryLine | undefined {
  let best: SummaryLine | undefined;
  for (const line of section.lines) if (!best || line.weight > best.weight) best = line;
  return best;
}

/**
 * A section's lines, most important first; among equal weights each next line is the one
 * farthest from those already ranked, so a section cut to a few lines still spans its range.
 */
function rankLines(section: SummarySection): SummaryLine[] {
  // Each candidate's distance to the nearest line ranked so far, updated as lines are picked.
  const remaining = section.lines.map((line, index) => ({ line, index, distance: 0 }));
  const ranked: SummaryLine[] = [];
  while (remaining.length > 0) {
    let best = 0;
    remaining.forEach((candidate, at) => {
      const current = remaining[best]!;
      if (
        candidate.line.weight > current.line.weight ||
        (candidate.line.weight === current.line.weight && candidate.distance > current.distance)
      )
        best = at;
    });
    const [chosen] = remaining.splice(best, 1);
    ranked.push(chosen!.line);
    for (const candidate of remaining) {
      const distance = Math.abs(candidate.index - chosen!.index);
      candidate.distance = ranked.length === 1 ? distance : Math.min(candidate.distance, distance);
    }
  }
  return ranked;
}

/**
 * Renders sections into at most `maxTokens`: first every section's most important line
 * (merging the narrowest older neighbours until each can keep a few lines), then the newest
 * section up to its share, then the most important lines anywhere, sections taking turns.
 */
export function renderSummary(
  sections: readonly SummarySection[],
  maxTokens: number,
  countTokens: (text: string) => number,
): string {
  // A counter may add a fixed framing per call (Baton's counts each text as a message): lines
  // are pieces of one text, so that framing is measured once and not charged per line.
  const framing = Math.max(0, countTokens('\n') - 1);
  const pieceTokens = (text: string) => Math.max(0, countTokens(text) - framing);
  let bound = maxTokens - framing;
  let text = fitSections(sections, bound, pieceTokens);
  // Lines counted apart can merge into fewer tokens, rarely more: re-fit tighter if they did.
  for (let attempt = 0; attempt < 3; attempt++) {
    const over = countTokens(text) - maxTokens;
    if (over <= 0) break;
    bound -= over + 1;
    text = fitSections(sections, bound, pieceTokens);
  }
  return text;
}

function fitSections(
  input: readonly SummarySection[],
  maxTokens: number,
  countTokens: (text: string) => number,
): string {
  let sections = input.filter((s) => s.lines.length > 0);
  // An older section should keep a few lines (a single line per stretch decays to one topic):
  // while the older sections' share cannot give each of them MIN_LINES_PER_SECTION short
  // lines, the narrowest neighbours merge. The newest section is never merged here.
  const olderShare = maxTokens * (sections.length > 1 ? 1 - NEWEST_SHARE : 1);
  const sectionCost = (section: SummarySection) =>
    countTokens(heading(section)) +
    MIN_LINES_PER_SECTION * (countTokens(compressLine(topLine(section)!.text, MIN_LINE_CHARS)) + 1);
  while (sections.length > 2) {
    const older = sections.slice(0, -1);
    if (older.reduce((sum, section) => sum + sectionCost(section), 0) <= olderShare) break;
    const at = narrowestPair(older);
    sections = [...sections.slice(0, at), merge(sections[at]!, sections[at + 1]!), ...sections.slice(at + 2)];
  }

  const ranked = sections.map(rankLines);
  const chosen = sections.map(() => new Map<SummaryLine, string>());
  let used = countTokens(DOCUMENT_HEADING) + 1;
  const take = (index: number, line: SummaryLine, text: string): boolean => {
    const cost = countTokens(text) + 1;
    if (used + cost > maxTokens) return false;
    chosen[index]!.set(line, text);
    used += cost;
    return true;
  };
  sections.forEach((section, index) => {
    used += countTokens(heading(section)) + 1;
    take(index, ranked[index]![0]!, compressLine(ranked[index]![0]!.text, MIN_LINE_CHARS));
  });
  const place = (index: number, line: SummaryLine, limit: number): boolean => {
    const current = chosen[index]!.get(line);
    const full = compressLine(line.text, limit);
    if (current === full) return true;
    if (current !== undefined) {
      // Upgrade a section's top line from its minimal form when the room is there.
      const extra = countTokens(full) - countTokens(current);
      if (used + extra > maxTokens) return false;
      chosen[index]!.set(line, full);
      used += extra;
      return true;
    }
    return take(index, line, full) || take(index, line, compressLine(line.text, MIN_LINE_CHARS));
  };
  const limitOf = (index: number) =>
    LINE_CHARS_BY_AGE[Math.min(sections.length - 1 - index, LINE_CHARS_BY_AGE.length - 1)]!;

  // The newest section (the span just evicted) fills its share first, with the longest lines.
  const newest = sections.length - 1;
  if (sections.length > 1) {
    const share = maxTokens * NEWEST_SHARE;
    const start = used;
    for (const line of ranked[newest]!) {
      if (used - start >= share) break;
      place(newest, line, limitOf(newest));
    }
  }
  // Then the most important lines anywhere: an old stretch keeps its decisions before a new
  // one keeps its small talk. Among equals, the section with the fewest lines for the stretch
  // it covers goes first, so lines spread evenly over the conversation, newer first on ties.
  const rest = ranked.flatMap((lines, index) => {
    const range = sections[index]!.range;
    const width = range ? range.to - range.from + 1 : lines.length;
    return lines.map((line, rank) => ({ index, line, density: (rank + 1) / width, age: newest - index }));
  });
  rest.sort((a, b) => b.line.weight - a.line.weight || a.density - b.density || a.age - b.age);
  for (const { index, line } of rest) place(index, line, limitOf(index));

  const rows = [DOCUMENT_HEADING];
  sections.forEach((section, index) => {
    const kept = chosen[index]!;
    if (kept.size === 0) return;
    rows.push(heading(section));
    for (const line of section.lines) {
      const text = kept.get(line);
      if (text !== undefined) rows.push(text);
    }
  });
  return rows.join('\n');
}

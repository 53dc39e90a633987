import { identifierIndex } from './identifiers.ts';
import { firstLine } from './transcript.ts';

/**
 * A folded result as `foldedResultText` writes it: its size, its first line in quotes (taken
 * greedily, so quotes and the line's own words inside it stay), the names, the recall call.
 */
const FOLDED =
  /^\[baton\] Folded .+? result \((\d+) chars[^)]*\)\. First line: "(.*)"\.(?: Names in it: .*\.)? Verbatim: recall\(\{ "ref": .*\}\)$/;

export interface FoldedResultInput {
  /** The tool's name. */
  name: string;
  /** The result's text as the model read it. */
  text: string;
  isError: boolean;
  /** Images or files the result carried beside its text. */
  media: number;
  /** How to recall the result verbatim (`recall({ "ref": ... })`). */
  recallHint: string;
}

/**
 * The one line `fold-tool-results` leaves in place of a result: its size, first line and names,
 * and how to recall it. `foldedResultOrigin` reads the size and first line back.
 *
 * @example
 * foldedResultText({ name: 'read', text, isError: false, media: 0, recallHint: recallRefHint(ref) });
 */
export function foldedResultText({ name, text, isError, media, recallHint }: FoldedResultInput): string {
  const first = firstLine(text, 100);
  const names = identifierIndex(text, first);
  const images =
    media > 0 ? `, ${media} image${media === 1 ? '' : 's'} or file${media === 1 ? '' : 's'}` : '';
  return `[baton] Folded ${name} result (${text.length} chars${images}${isError ? ', error' : ''}). First line: "${first}".${names ? ` Names in it: ${names}.` : ''} Verbatim: ${recallHint}`;
}

/**
 * What a folded result's line says of the result it stands for: its size in characters and its
 * first line; undefined for any other text. A summary of the call reports the result, not the
 * line standing for it.
 */
export function foldedResultOrigin(output: string): { chars: number; firstLine: string } | undefined {
  const match = FOLDED.exec(output);
  return match ? { chars: Number(match[1]), firstLine: match[2]! } : undefined;
}

/**
 * Baton's notices read back from the text a model received, as figures a test can check
 * against what it computes itself. Each reader returns undefined when its notice is absent.
 * The shapes follow the notice texts of `@baton/core` (notices.ts); a reworded notice fails
 * here first, on purpose: these are the words the agent acts on.
 */

const num = (text: string): number => Number(text.replaceAll(',', ''));

/** What the warning states: its percentage, the count, the budget and the tokens left. */
export interface WarningFigures {
  percent: number;
  tokens: number;
  budget: number;
  tokensLeft: number;
}

/** One line of the eviction notice's index. */
export interface EvictionIndexLine {
  from: number;
  to: number;
  stage: string;
  /** The number of messages or tool results the line says the span held. */
  count: number;
  /** What the line says the span held: tool calls with arguments, or the first words. */
  description: string;
  /** The recall call the line gives for the span (folds give none: their placeholders carry refs). */
  recall?: { ref: string } | { from: number; to: number };
}

/** What the eviction notice states. */
export interface EvictionFigures {
  stages: string[];
  /** Tokens freed, 0 when it says none were. */
  tokensFreed: number;
  lines: EvictionIndexLine[];
  /** Whether it ends with the three recall forms (ref, range, query). */
  recallForms: boolean;
}

/** One preview the degrade notice lists. */
export interface DegradeLine {
  what: string;
  seq: number;
  shown: number;
  chars: number;
  ref: string;
}

/** What the next-turn unfit notice states. */
export interface UnfitFigures {
  tokens: number;
  budget: number;
  reason: string;
  checkpointRef: string;
}

/** Every notice of one trailer, read into figures. */
export interface NoticeFigures {
  warning?: WarningFigures;
  eviction?: EvictionFigures;
  degrade?: DegradeLine[];
  unfit?: UnfitFigures;
}

const WARNING =
  /\[baton\] Context is at (\d+)% of its budget \(([\d,]+) of ([\d,]+) tokens\); compaction starts in about ([\d,]+) tokens\./;
const EVICTION =
  /\[baton\] Context was compacted before this step \(([^;]+); (?:([\d,]+) tokens freed|no net tokens freed)\)/;
const INDEX_LINE = /^- seq (\d+)(?:-(\d+))? \(([a-z-]+), (\d+) (?:messages?|tool results?)\): (.*)$/;
const RECALL_TAIL = / -> recall\((\{.*\})\)$/;
const RECALL_FORMS =
  'Get anything back with recall({ "ref": … }), recall({ "from": …, "to": … }) or recall({ "query": "words" })';
const DEGRADE_LINE =
  /^- (.+) \(seq (\d+)\): ([\d,]+) of ([\d,]+) chars shown; read the rest with recall\(\{ "ref": ("[^"]+"), "offset": 0/;
const UNFIT =
  /\[baton\] The previous step could not fit the context window \(([\d,]+) tokens needed, ([\d,]+) available\): (.*)\. That turn was ended instead of failing\. A checkpoint of your notes, the compaction ledger and the archive index was saved as ("[^"]*")\./;

/** The notice (a paragraph of the trailer) that starts with `start`, else ''. */
function paragraph(trailer: string, start: string): string {
  return trailer.split('\n\n').find((block) => block.startsWith(start)) ?? '';
}

function evictionOf(trailer: string): EvictionFigures | undefined {
  const text = paragraph(trailer, '[baton] Context was compacted');
  const head = EVICTION.exec(text);
  if (!head) return undefined;
  const lines = text.split('\n').flatMap((line): EvictionIndexLine[] => {
    const match = INDEX_LINE.exec(line);
    if (!match) return [];
    const from = Number(match[1]);
    const tail = RECALL_TAIL.exec(match[5]!);
    const recall = tail ? (JSON.parse(tail[1]!) as EvictionIndexLine['recall']) : undefined;
    return [
      {
        from,
        to: match[2] === undefined ? from : Number(match[2]),
        stage: match[3]!,
        count: Number(match[4]),
        description: tail ? match[5]!.slice(0, tail.index) : match[5]!,
        ...(recall ? { recall } : {}),
      },
    ];
  });
  return {
    stages: head[1]!.split(', '),
    tokensFreed: head[2] === undefined ? 0 : num(head[2]),
    lines,
    recallForms: text.includes(RECALL_FORMS),
  };
}

/**
 * Reads Baton's notices out of a trailer (the text of the trailing notices message).
 *
 * @example
 * const { warning } = readNotices(trailerOf(prompt));
 * expect(warning?.tokensLeft).toBe(expectedTokensLeft(warning!.tokens, 12_000));
 */
export function readNotices(trailer: string): NoticeFigures {
  const figures: NoticeFigures = {};
  const warning = WARNING.exec(trailer);
  if (warning) {
    figures.warning = {
      percent: Number(warning[1]),
      tokens: num(warning[2]!),
      budget: num(warning[3]!),
      tokensLeft: num(warning[4]!),
    };
  }
  const eviction = evictionOf(trailer);
  if (eviction) figures.eviction = eviction;
  if (trailer.includes('shown as head/tail previews')) {
    figures.degrade = trailer.split('\n').flatMap((line): DegradeLine[] => {
      const match = DEGRADE_LINE.exec(line);
      if (!match) return [];
      return [
        {
          what: match[1]!,
          seq: Number(match[2]),
          shown: num(match[3]!),
          chars: num(match[4]!),
          ref: JSON.parse(match[5]!) as string,
        },
      ];
    });
  }
  const unfit = UNFIT.exec(trailer);
  if (unfit) {
    figures.unfit = {
      tokens: num(unfit[1]!),
      budget: num(unfit[2]!),
      reason: unfit[3]!,
      checkpointRef: JSON.parse(unfit[4]!) as string,
    };
  }
  return figures;
}

/**
 * The tokens left before compaction that a warning at `tokens` must state, computed from the
 * budget alone: `compactAt × inputBudget − tokens`, never below 0, rounded as notices round.
 * Defaults: `compactAt` 0.8 (Baton's default).
 *
 * @example
 * expectedTokensLeft(8_000, 12_000); // 1_600
 */
export function expectedTokensLeft(tokens: number, inputBudget: number, compactAt = 0.8): number {
  return Math.round(Math.max(0, compactAt * inputBudget - tokens));
}

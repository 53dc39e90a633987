import { z } from 'zod/v4';
import type { CompactionPreview } from '../controller/requested-compaction.ts';
import type { ArchiveApi } from '../stores/archive.ts';
import { type NotesApi, NotesError, renderNotes } from './notes.ts';
import { RecallError, recall, recallInputSchema } from './recall.ts';

/**
 * A tool the agent calls, in no framework's idiom: adapters wrap it as an AI SDK `tool()`,
 * a LangChain tool or a Mastra tool. `execute` validates its input and throws
 * `BatonToolError` with a message meant for the model when the call cannot be served.
 */
export interface NeutralTool<Input = unknown> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  execute(input: unknown): Promise<unknown>;
}

/** An error the model should read (bad arguments, notes over the cap, unknown ref). */
export class BatonToolError extends Error {
  override readonly name = 'BatonToolError';
  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(`[baton] [${tool}] ${message}`);
  }
}

export const notesInputSchema = z
  .object({
    action: z
      .enum(['read', 'write', 'append'])
      .describe(
        'read all or one section; write replaces a section (empty text removes it); append adds a line',
      ),
    section: z
      .string()
      .min(1)
      .max(80)
      .optional()
      .describe('section name, e.g. "plan", "facts", "open questions"'),
    text: z.string().optional().describe('the text to write or append'),
  })
  .strict();

export const compactInputSchema = z
  .object({
    instruction: z
      .string()
      .max(2_000)
      .optional()
      .describe(
        'what the summary of older turns must keep, e.g. "keep the failing test names and file paths"',
      ),
    checkpoint: z
      .string()
      .max(20_000)
      .optional()
      .describe('text saved to your notes (section "checkpoint") before compacting'),
  })
  .strict();

export interface AgentToolDeps {
  notes: NotesApi;
  archive: ArchiveApi;
  /** Asks for compaction before the next model call. */
  /** Records the request durably, so whichever worker makes the next call compacts. */
  requestCompaction(instruction: string | undefined, checkpoint: string | undefined): void | Promise<void>;
  /**
   * The agent changed its notes through this tool (rendered before and after): its history
   * shows the change, so the cached notes block need not change before the next compaction.
   */
  noteWritten?(before: string, after: string): void | Promise<void>;
  /** What a compaction asked for now can take (from the last projection), for the compact tool's answer. */
  compactionPreview(): CompactionPreview;
  recallLimit(): number;
}

function parse<T>(tool: string, schema: z.ZodType<T>, input: unknown, forms: string): T {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new BatonToolError(
    tool,
    `${forms}. Problem: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`,
  );
}

async function guard<T>(tool: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof BatonToolError) throw error;
    if (error instanceof NotesError || error instanceof RecallError)
      throw new BatonToolError(tool, error.message);
    throw new BatonToolError(
      tool,
      `could not be completed (${error instanceof Error ? error.message : String(error)}); nothing was changed`,
    );
  }
}

const fmtTokens = (n: number) => Math.round(n).toLocaleString('en-US');

/** The compact tool's answer: what the next call will do, with the numbers it starts from. */
function compactPlan(preview: CompactionPreview, instructed: boolean, checkpoint: boolean): string {
  const { tokens, target, span, summarizes } = preview;
  const archived =
    'archived verbatim; a notice before your next step will list what went and how to recall it.';
  if (tokens === 0) {
    return `Compaction runs before your next step${instructed && summarizes ? ': older turns are replaced by a summary following your instruction' : ''} and what goes is ${archived}`;
  }
  const now = `The context is about ${fmtTokens(tokens)} tokens now.`;
  const range = span
    ? `messages seq ${span.from}-${span.to} (${span.messages} messages, about ${fmtTokens(span.tokens)} tokens)`
    : undefined;
  if (instructed && summarizes && range) {
    return `${now} Before your next step, ${range} will be replaced by a summary that follows your instruction${checkpoint ? ' (by your checkpoint if no summary can be written)' : ''}; then, if the context is still above ${fmtTokens(target)} tokens, older tool results are folded. What goes is ${archived}`;
  }
  const why = instructed
    ? summarizes
      ? ' Your instruction cannot shape a summary: no older turns are large enough to summarize; your notes carry what you keep.'
      : ' Your instruction cannot shape a summary: no summarize stage is configured; your notes carry what you keep.'
    : '';
  return `${now} Before your next step, older turns${range ? ` (${range})` : ''} are folded, digested or summarised until the context is at most about ${fmtTokens(target)} tokens.${why} What goes is ${archived}`;
}

/** The three agent tools of a session: notes, compact, recall. */
export function createAgentTools(deps: AgentToolDeps): NeutralTool[] {
  const notesTool: NeutralTool<z.infer<typeof notesInputSchema>> = {
    name: 'notes',
    description:
      'Your durable notes. Whatever you write here is kept verbatim through every context compaction and shown in your system prompt from the next compaction on: ' +
      'save the plan, decisions, facts and paths you must not lose. Actions: read, write (replace a section), append (add a line).',
    inputSchema: notesInputSchema,
    execute: (input) =>
      guard('notes', async () => {
        const args = parse(
          'notes',
          notesInputSchema,
          input,
          'notes takes { "action": "read" | "write" | "append", "section"?: string, "text"?: string }',
        );
        if (args.action === 'read') {
          const sections = args.section
            ? [await deps.notes.read(args.section)].filter((s) => s !== undefined)
            : await deps.notes.read();
          const usage = await deps.notes.usage();
          return { notes: renderNotes(sections) || '(no notes yet)', tokens: usage.tokens, cap: usage.cap };
        }
        if (!args.section || args.text === undefined) {
          throw new BatonToolError('notes', `${args.action} needs "section" and "text"`);
        }
        const before = renderNotes(await deps.notes.read());
        const sections =
          args.action === 'write'
            ? await deps.notes.write(args.section, args.text)
            : await deps.notes.append(args.section, args.text);
        await deps.noteWritten?.(before, renderNotes(sections));
        const usage = await deps.notes.usage();
        return {
          saved: args.section,
          sections: sections.map((s) => s.name),
          tokens: usage.tokens,
          cap: usage.cap,
        };
      }),
  };

  const compactTool: NeutralTool<z.infer<typeof compactInputSchema>> = {
    name: 'compact',
    description:
      'Compact your context now, at a moment you choose (a closed unit of work is a good one). Before your next step older turns ' +
      'are replaced by a summary written to your instruction (what to keep) and archived verbatim for recall. Pass a checkpoint to save it to your notes first. ' +
      'The answer says which turns will go and the token counts.',
    inputSchema: compactInputSchema,
    execute: (input) =>
      guard('compact', async () => {
        const args = parse(
          'compact',
          compactInputSchema,
          input,
          'compact takes { "instruction"?: string, "checkpoint"?: string }',
        );
        if (args.checkpoint) await deps.notes.write('checkpoint', args.checkpoint);
        const saved = args.checkpoint ? 'Checkpoint saved to your notes (section "checkpoint"). ' : '';
        const preview = deps.compactionPreview();
        if (preview.tokens > 0 && !preview.span && preview.foldable === 0) {
          // Told plainly rather than scheduled: the next call would find nothing to take.
          return {
            scheduled: false,
            tokens: preview.tokens,
            message: `${saved}Nothing to compact: the context (about ${fmtTokens(preview.tokens)} tokens) holds only your newest turns, pinned tool results and the current request, which compaction keeps. No compaction was scheduled.`,
          };
        }
        await deps.requestCompaction(args.instruction, args.checkpoint);
        return {
          scheduled: true,
          ...preview,
          message: `${saved}${compactPlan(preview, args.instruction !== undefined, args.checkpoint !== undefined)}`,
        };
      }),
  };

  const recallTool: NeutralTool<z.infer<typeof recallInputSchema>> = {
    name: 'recall',
    description:
      'Bring back content evicted from your context, verbatim: by ref (from a notice or placeholder), by seq range, or by a text query. ' +
      'A query returns the text around each match, best record first, and where every match is (matches: ref and character offsets) so recall({ ref, offset }) reads further. ' +
      'Large results are paged: pass offset and limit (characters) and follow nextOffset.',
    inputSchema: recallInputSchema,
    execute: (input) => guard('recall', () => recall(deps.archive, input, deps.recallLimit())),
  };

  return [notesTool, compactTool, recallTool] as NeutralTool[];
}

import { z } from 'zod/v4';
import type { Entry } from '../transcript/transcript.ts';

// The contract with the host's model: what Baton asks it (probes, continuation summaries) and
// what it answers. Adapters implement it; the probes and summarizers above use it.

export type ProbeDecision = 'COMPRESS' | 'CONTINUE';

/** What the model answers to a probe (its structured output). */
export const probeAnswerSchema = z.object({
  criteria: z
    .array(
      z.object({
        id: z.string().describe('the criterion id, as given'),
        answer: z.enum(['Y', 'N']),
        // Not empty, but checked in code: providers' structured outputs reject length constraints.
        evidence: z
          .string()
          .describe('a short quote from the conversation that supports the answer (required, not empty)'),
      }),
    )
    .describe('one entry per criterion, in the order given'),
  decision: z.enum(['COMPRESS', 'CONTINUE']),
});

export type ProbeAnswer = z.infer<typeof probeAnswerSchema>;

/** What a probe sends: the context exactly as the model last saw it, plus the probe message. */
export interface ProbeRequest {
  entries: readonly Entry[];
  system: string;
  /** The probe message, to append as the last user message (after everything, so the cached prefix holds). */
  prompt: string;
  /** The answer's shape, for the host's structured-output mechanism. */
  schema: typeof probeAnswerSchema;
  signal: AbortSignal;
}

/** The host model answering a probe with structured output. */
export type ProbeJudge = (
  request: ProbeRequest,
) => Promise<{ output: unknown; usage?: ProbeUsage | undefined }>;

/** Tokens a provider reported for one probe call (either may be unknown). */
export interface ProbeUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}

/** The host's model, as an adapter exposes it to the core for probes and continuation summaries. */
export interface HostModel {
  judge?: ProbeJudge;
  complete?: TextCompletion;
}

/** One text completion by the host's model (the adapter's bridge to it). */
export type TextCompletion = (request: {
  system: string;
  prompt: string;
  maxTokens: number;
  signal?: AbortSignal;
}) => Promise<string>;

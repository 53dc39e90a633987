import { type BatonSettings, type CallOutput, providerCompactionOf, type Session } from '@baton/core';
import type { ProcessInputStepArgs, ProcessInputStepResult } from '@mastra/core/processors';
import { stepOutputCap, stepOutputOf } from './call-model.ts';
import { providerOptionsWithCacheKey } from './prompt-cache.ts';

/** What a step's call settings tell Baton, and what Baton changes in them. */
export interface StepCallSettings {
  /** The step's model and output limit (before Baton's cap): they give the budget. */
  output: CallOutput;
  /** The provider-side compaction the step's providerOptions turn on (told once per session). */
  providerCompaction: string | undefined;
  /** What `processInputStep` returns besides the tools: only the settings Baton changes. */
  changes: Pick<ProcessInputStepResult, 'modelSettings' | 'providerOptions'>;
}

/**
 * The call settings of a step, read in `processInputStep` (the prompt hook cannot set call
 * options): the model and output limit the budget is for, the provider compaction its
 * providerOptions turn on, a provider default output limit that cannot fit the window lowered,
 * and OpenAI's `promptCacheKey` set to the session id.
 *
 * @example
 * const step = stepCallSettings(core.options, session, args);
 * return { tools, ...step.changes };
 */
export function stepCallSettings(
  settings: BatonSettings,
  session: Session,
  args: Pick<ProcessInputStepArgs, 'model' | 'modelSettings' | 'providerOptions'>,
): StepCallSettings {
  const output = stepOutputOf(args.model, args.modelSettings);
  const cap = stepOutputCap(settings, output);
  const providerOptions = providerOptionsWithCacheKey(session, args.model, args.providerOptions);
  return {
    output,
    providerCompaction: providerCompactionOf(args.providerOptions),
    changes: {
      ...(cap === undefined ? {} : { modelSettings: { ...args.modelSettings, maxOutputTokens: cap } }),
      ...(providerOptions
        ? { providerOptions: providerOptions as NonNullable<ProcessInputStepResult['providerOptions']> }
        : {}),
    },
  };
}

// One install: everything an AI SDK user needs from the core comes through here.
export * from '@baton/core';
// The AI SDK's prompt conversion under the names the other adapters use.
export {
  entriesToPrompt as fromEntries,
  type PromptMessage as HostMessage,
  type PromptPart as HostPart,
} from '@baton/core/internals';
export { type BatonToolSet, batonTools } from './agent-tools.ts';
export { type AiSdkBaton, type AiSdkSession, createBaton } from './baton.ts';
export { batonMiddleware } from './middleware.ts';
export { batonPrepareStep, type PrepareStepOptions } from './prepare-step.ts';
export { type SdkPrompt, toEntries } from './prompt-entries.ts';

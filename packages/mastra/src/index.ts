// One install: everything a Mastra user needs from the core comes through here.
export * from '@baton/core';
export { batonTools, type MastraTool } from './agent-tools.ts';
export { BatonProcessor, batonProcessor } from './baton-processor.ts';
export { mastraMemoryStore } from './memory-store.ts';
export type { BatonProcessorOptions } from './processor-options.ts';
export type { BatonTripwireMetadata, BatonUnfitOutcome } from './unfit-outcomes.ts';
export {
  PREAMBLE_SECTION,
  parseWorkingMemory,
  renderWorkingMemory,
  workingMemoryNotes,
} from './working-memory-notes.ts';

// One install: everything a Mastra user needs from the core comes through here.
export * from '@baton/core';
export { batonTools, type MastraTool } from './agent-tools.ts';
export {
  BatonProcessor,
  type BatonProcessorOptions,
  type BatonTripwireMetadata,
  type BatonUnfitOutcome,
  batonProcessor,
} from './baton-processor.ts';
export { mastraMemoryStore } from './memory-store.ts';
export {
  PREAMBLE_SECTION,
  parseWorkingMemory,
  renderWorkingMemory,
  workingMemoryNotes,
} from './working-memory-notes.ts';

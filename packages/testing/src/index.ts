export { contextLengthError } from './context-length-error.ts';
export { filler } from './filler.ts';
export { describeNotesBackendConformance } from './notes-conformance.ts';
export {
  archiveRecord,
  describeStoreConformance,
  hostileIds,
  type StoreCapability,
  type StoreConformanceOptions,
} from './store-conformance.ts';
export { conversationOf, isNoticesText, trailerOf } from './trailer.ts';

export { contextLengthError } from './context-length-error.ts';
export { filler } from './filler.ts';
export {
  archiveRecord,
  describeStoreConformance,
  type StoreCapability,
  type StoreConformanceOptions,
} from './store-conformance.ts';

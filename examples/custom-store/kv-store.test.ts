import { describeStoreConformance } from '@baton/testing';
import { kvStore, mapKeyValue } from './kv-store.ts';

// The backing map plays the service: a reopen is a new store over the same data.
const services = new WeakMap<object, Map<string, string>>();

describeStoreConformance('kvStore example', {
  create: () => {
    const service = new Map<string, string>();
    const store = kvStore(mapKeyValue(service));
    services.set(store, service);
    return store;
  },
  reopen: async (store) => kvStore(mapKeyValue(services.get(store) as Map<string, string>)),
  lacks: { documentVersion: 'reading the version costs the same as reading the document here' },
});

import { describeStoreConformance } from '@baton/scenarios/support/store-conformance.ts';
import { InMemoryStore } from '@langchain/langgraph';
import { langGraphStore } from './langgraph-store.ts';

describeStoreConformance('LangGraph InMemoryStore bridge', () => langGraphStore(new InMemoryStore()));

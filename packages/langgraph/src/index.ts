// One install: everything a LangChain / LangGraph user needs from the core comes through here.
export * from '@baton/core';
export { createBatonTools } from './agent-tools.ts';
export { type BatonMiddlewareOptions, batonMiddleware } from './baton-middleware.ts';
export {
  batonTools,
  CONTEXT_MESSAGE_ID,
  createCompactionNode,
  routeAfterCompaction,
} from './compaction-node.ts';
export { type ChatModelLike, hostModelFor } from './host-model.ts';
export { langGraphStore } from './langgraph-store.ts';
export { fromEntries, toEntries } from './message-conversion.ts';
export {
  type LangGraphBatonOptions,
  type RunIdentity,
  type SessionScope,
  sessionIdOf,
  sessionsFor,
  ThreadSessions,
} from './sessions.ts';

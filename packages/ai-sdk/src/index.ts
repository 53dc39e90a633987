// One install: everything an AI SDK user needs from the core comes through here.
export * from '@baton/core';
export { type BatonToolSet, batonTools } from './agent-tools.ts';
export { type AiSdkBaton, type AiSdkSession, createBaton } from './baton.ts';
export { fromEntries, type HostMessage, type HostPart, toEntries } from './message-conversion.ts';
export { batonMiddleware } from './middleware.ts';
export { batonPrepareStep } from './prepare-step.ts';

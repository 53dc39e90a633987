import type { BatonEvent } from '@baton/core';

interface SpanLike {
  isRecording(): boolean;
  addEvent(name: string, attributes?: Record<string, string | number | boolean>): void;
}
interface TraceApi {
  getActiveSpan(): SpanLike | undefined;
}

let traceApi: TraceApi | null | undefined;

/** Loads `@opentelemetry/api` (the SDK's own telemetry dependency) once, if it is installed. */
export async function loadTelemetry(): Promise<void> {
  if (traceApi !== undefined) return;
  try {
    const specifier = '@opentelemetry/api';
    traceApi = ((await import(specifier)) as { trace: TraceApi }).trace;
  } catch {
    traceApi = null;
  }
}

/**
 * Adds the event to the active span when one is recording: with the SDK's
 * `experimental_telemetry` on, Baton's events appear on the model-call spans.
 */
export function recordSpanEvent(event: BatonEvent): void {
  const span = traceApi?.getActiveSpan();
  if (!span?.isRecording()) return;
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(event)) {
    if (key === 'type') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      attributes[`baton.${key}`] = value;
    else if (value !== undefined) attributes[`baton.${key}`] = JSON.stringify(value);
  }
  span.addEvent(`baton.${event.type}`, attributes);
}

import { OpenTelemetry } from '@ai-sdk/otel';
import { filler, scriptedModel } from '@baton/testing/ai-sdk';
import { context, type Span, type SpanOptions, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBaton } from './index.ts';
import { loadTelemetry } from './telemetry.ts';

/** A tracer that records span names and events, enough for the SDK's telemetry to run on. */
function recordingTracer() {
  const spans: Array<{
    name: string;
    events: Array<{ name: string; attributes?: Record<string, unknown> }>;
  }> = [];
  const makeSpan = (name: string): Span => {
    const record = { name, events: [] as Array<{ name: string; attributes?: Record<string, unknown> }> };
    spans.push(record);
    const span = {
      spanContext: () => ({
        traceId: '0'.repeat(32),
        spanId: String(spans.length).padStart(16, '0'),
        traceFlags: 1,
      }),
      setAttribute: () => span,
      setAttributes: () => span,
      addEvent: (eventName: string, attributes?: Record<string, unknown>) => {
        record.events.push({ name: eventName, ...(attributes ? { attributes } : {}) });
        return span;
      },
      addLink: () => span,
      addLinks: () => span,
      setStatus: () => span,
      updateName: () => span,
      end: () => undefined,
      isRecording: () => true,
      recordException: () => undefined,
    } as unknown as Span;
    return span;
  };
  const tracer = {
    startSpan: (name: string) => makeSpan(name),
    startActiveSpan: (name: string, ...rest: unknown[]) => {
      const fn = rest.at(-1) as (span: Span) => unknown;
      const span = makeSpan(name);
      return context.with(trace.setSpan(context.active(), span), () => fn(span));
    },
  } as unknown as Tracer & {
    startActiveSpan(name: string, options: SpanOptions, fn: (span: Span) => unknown): unknown;
  };
  return { tracer, spans };
}

describe('OpenTelemetry span events', () => {
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(async () => {
    context.setGlobalContextManager(manager.enable());
    await loadTelemetry();
  });
  afterAll(() => {
    manager.disable();
    context.disable();
  });

  it("records Baton events on the model-call spans of the SDK's OpenTelemetry integration", async () => {
    const { tracer, spans } = recordingTracer();
    const session = createBaton({ contextWindow: 6_000 }).session('otel');
    const { model, prompts } = scriptedModel(({ step }) =>
      step < 12 ? { calls: [{ name: 'read', input: { n: step } }] } : { text: 'done' },
    );
    await generateText({
      model: wrapLanguageModel({ model, middleware: session.middleware }),
      tools: {
        read: tool({
          inputSchema: z.object({ n: z.number() }),
          execute: async ({ n }) => `CONTENT-MARK-${n} ${filler(2_000, n)}`,
        }),
      },
      stopWhen: stepCountIs(20),
      prompt: 'read',
      telemetry: { isEnabled: true, integrations: [new OpenTelemetry({ tracer })] },
    });
    const events = spans.flatMap((s) => s.events);
    const completed = events.find((e) => e.name === 'baton.stage-completed');
    expect(completed?.attributes).toMatchObject({ 'baton.stage': 'fold-tool-results' });
    // Counts and names, never content: the marker reached the model, and no span event.
    expect(JSON.stringify(prompts)).toContain('CONTENT-MARK-3');
    expect(JSON.stringify(events)).not.toContain('CONTENT-MARK');
  });
});

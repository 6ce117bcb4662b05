import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PreparedMessage } from '../../shared/consumer/handle-message.js';
import { traceMessage } from '../../shared/consumer/tracing.js';
import type { ConsumerMessage, MessageOutcome } from '../../shared/consumer/types.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';
import { envelopeTrace } from '../../shared/tracing/envelope-trace.js';
import { resetOtelApi } from '../../shared/tracing/otel-api.js';
import { tracestateToPass } from '../../shared/tracing/trace-context.js';

const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
/** Trace state without list members: W3C says a vendor SHOULD avoid sending one. */
const MEMBERLESS = ['', ' , ', ',,', '\t,  ,'];

describe('a tracestate passed on', () => {
  it.each(MEMBERLESS)('drops %j, which has no list member', (tracestate) => {
    expect(tracestateToPass(tracestate)).toBeUndefined();
    expect(envelopeTrace({ traceparent, tracestate })).toEqual({ traceparent });
  });

  it.each(['vendor=a', ' vendor=a , other=b', ',vendor=a,'])('passes %j on as given', (tracestate) => {
    expect(tracestateToPass(tracestate)).toBe(tracestate);
    expect(envelopeTrace({ traceparent, tracestate })).toEqual({ traceparent, tracestate });
  });

  it.each([['not key value'], [42], [{ vendor: 'a' }]])('drops %j, which is not W3C trace state', (tracestate) => {
    expect(tracestateToPass(tracestate)).toBeUndefined();
    expect(envelopeTrace({ traceparent, tracestate })).toEqual({ traceparent });
  });
});

describe('a consumer continuing a producer whose tracestate has no members', () => {
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterEach(() => {
    trace.disable();
    context.disable();
    propagation.disable();
    resetOtelApi();
  });

  const envelope = (tracestate: string): OutboxEnvelope =>
    ({ id: 'e-1', type: 'order.placed', source: 'urn:test', subject: 'o-1', traceparent, tracestate }) as OutboxEnvelope;
  const ready = (e: OutboxEnvelope): PreparedMessage => {
    const event = { envelope: e, handler: { handle: () => {} } };
    return { status: 'ready', events: [event], ...event };
  };
  const message: ConsumerMessage = { messageId: 'm-1', body: '{}', queueName: 'orders-queue' };
  const processed: MessageOutcome = { status: 'processed', messageId: 'm-1', eventId: 'e-1', type: 'order.placed' };

  /** The headers a call the handler makes would send, as the W3C propagator injects them. */
  async function headersSent(tracestate: string): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    await traceMessage({ producer: 'parent' }, message, ready(envelope(tracestate)), async () => {
      propagation.inject(context.active(), headers);
      return processed;
    });
    return headers;
  }

  it('sends no empty tracestate on, under the producer’s trace', async () => {
    const headers = await headersSent(' , ');
    expect(headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(headers).not.toHaveProperty('tracestate');
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext?.traceState).toBeUndefined();
  });

  it('sends a tracestate with members on', async () => {
    expect(await headersSent('vendor=a')).toMatchObject({ tracestate: 'vendor=a' });
  });
});

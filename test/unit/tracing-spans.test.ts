import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageRejectedError } from '../../shared/consumer/errors.js';
import type { PreparedMessage } from '../../shared/consumer/handle-message.js';
import { traceMessage } from '../../shared/consumer/tracing.js';
import type { ConsumerMessage, MessageOutcome } from '../../shared/consumer/types.js';
import { messageAttributes, type OutboxEnvelope, type SlotMessage } from '../../shared/envelope.js';
import type { RelayResult } from '../../shared/relay/outcome.js';
import { batchEntry, publishEntry } from '../../shared/relay/publish-entry.js';
import { traceRelayBatch } from '../../shared/relay/relay-tracing.js';
import { otelImport, resetOtelApi } from '../../shared/tracing/otel-api.js';
import { MAX_SPAN_LINKS } from '../../shared/tracing/span-context.js';

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const parent = (n: number) => `00-${hex(n + 1, 32)}-${hex(n + 1, 16)}-01`;
const message = (n: number, trace?: { traceparent?: string; tracestate?: string }): SlotMessage => ({
  id: `e-${n}`,
  type: 'order.placed',
  aggregateType: 'order',
  aggregateId: `o-${n}`,
  sequence: 1,
  body: '{}',
  ...trace,
});
const result = (failed = 0): RelayResult => ({
  outcomes: Array.from({ length: failed }, () => ({
    status: 'failed' as const,
    record: { sequenceNumber: '1' } as never,
    reason: 'PUBLISH_FAILED' as const,
    detail: 'x',
  })),
  published: 0,
  retried: 0,
  deadLettered: 0,
  ignored: 0,
  failed,
});

const envelope = (n: number, traceparent?: string): OutboxEnvelope =>
  ({
    id: `e-${n}`,
    type: 'order.placed',
    source: 'urn:test',
    subject: `o-${n}`,
    ...(traceparent ? { traceparent } : {}),
  }) as OutboxEnvelope;
const ready = (...envelopes: OutboxEnvelope[]): PreparedMessage => {
  const events = envelopes.map((e) => ({ envelope: e, handler: { handle: () => {} } }));
  return { status: 'ready', events, ...events[0]! };
};
const sqsMessage: ConsumerMessage = { messageId: 'm-1', body: '{}', queueName: 'orders-queue' };
const processed: MessageOutcome = { status: 'processed', messageId: 'm-1', eventId: 'e-1', type: 'order.placed' };

let exporter: InMemorySpanExporter;

afterEach(() => {
  trace.disable();
  context.disable();
  vi.restoreAllMocks();
  resetOtelApi();
});

describe('with no tracer provider registered', () => {
  it('runs the relay batch and the message without importing the API or making a span', async () => {
    const load = vi.spyOn(otelImport, 'load');
    // A context manager alone (the write side's need) makes no spans either.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    await expect(
      traceRelayBatch({ messages: [message(1, { traceparent: parent(1) })], topics: ['orders'] }, async () => result()),
    ).resolves.toEqual(result());
    await expect(traceMessage(undefined, sqsMessage, ready(envelope(1, parent(1))), async () => processed)).resolves.toBe(processed);
    expect(load).not.toHaveBeenCalled();
  });

  it('runs them when a provider is registered but the package cannot be loaded, with no error', async () => {
    exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const load = vi.spyOn(otelImport, 'load').mockResolvedValue(undefined);
    await expect(traceRelayBatch({ messages: [message(1)], topics: ['orders'] }, async () => result(1))).resolves.toEqual(result(1));
    await expect(traceMessage({ producer: 'parent' }, sqsMessage, ready(envelope(1, parent(1))), async () => processed)).resolves.toBe(
      processed,
    );
    expect(load).toHaveBeenCalledOnce();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('with a tracer provider', () => {
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });

  it('links the relay batch to each distinct event context, ignores malformed ones and caps the links at 128', async () => {
    const messages = [
      message(0, { traceparent: parent(0), tracestate: 'vendor=a' }),
      message(1, { traceparent: parent(0) }),
      message(2, { traceparent: 'not-a-traceparent' }),
      message(3),
      ...Array.from({ length: 200 }, (_, i) => message(10 + i, { traceparent: parent(10 + i) })),
    ];
    await traceRelayBatch({ messages, topics: ['orders', 'payments'] }, async () => result(2));
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('send');
    expect(span?.links).toHaveLength(MAX_SPAN_LINKS);
    expect(span?.links[0]?.context).toMatchObject({ traceId: hex(1, 32), spanId: hex(1, 16), isRemote: true });
    expect(span?.links[0]?.context.traceState?.get('vendor')).toBe('a');
    expect(span?.attributes).toMatchObject({ 'messaging.batch.message_count': 204, 'outbox.links_dropped': 201 - MAX_SPAN_LINKS });
    expect(span?.attributes).not.toHaveProperty('messaging.destination.name');
    expect(span?.status).toMatchObject({ code: SpanStatusCode.ERROR });
  });

  it('makes no relay span for a batch with no event to publish', async () => {
    await traceRelayBatch({ messages: [], topics: [] }, async () => result());
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('makes the relay batch span active while it publishes, so an instrumented client nests under it', async () => {
    let active: string | undefined;
    await traceRelayBatch({ messages: [message(1)], topics: ['orders'] }, async () => {
      active = trace.getActiveSpan()?.spanContext().spanId;
      return result();
    });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('send orders');
    expect(active).toBe(span?.spanContext().spanId);
  });

  it('links a batch message to each of its events, even when asked to parent', async () => {
    await traceMessage({ producer: 'parent' }, sqsMessage, ready(envelope(1, parent(1)), envelope(2, parent(2))), async () => processed);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('process orders-queue');
    expect(span?.links.map((link) => link.context.spanId)).toEqual([hex(2, 16), hex(3, 16)]);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.attributes).toMatchObject({ 'outbox.events': 2 });
    expect(span?.attributes).not.toHaveProperty('cloudevents.event_id');
  });

  it('takes the message attributes’ context for a message that did not parse', async () => {
    const attributes = { traceparent: { dataType: 'String', stringValue: parent(5) } };
    const error = new MessageRejectedError('INVALID_JSON', 'not JSON');
    const done: PreparedMessage = { status: 'done', outcome: { status: 'rejected', messageId: 'm-1', error } };
    await traceMessage(undefined, { ...sqsMessage, messageAttributes: attributes }, done, async () => ({
      status: 'rejected',
      messageId: 'm-1',
      error,
    }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.links[0]?.context.spanId).toBe(hex(6, 16));
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INVALID_JSON: not JSON' });
    expect(span?.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('records a failed handler on the span', async () => {
    const error = new Error('downstream refused');
    await traceMessage(undefined, sqsMessage, ready(envelope(1, parent(1))), async () => ({
      status: 'failed',
      messageId: 'm-1',
      eventId: 'e-1',
      type: 'order.placed',
      error,
    }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'downstream refused' });
    expect(span?.attributes['outbox.outcome']).toBe('failed');
  });
});

describe('trace context as SNS message attributes', () => {
  const traced = message(1, { traceparent: parent(1), tracestate: 'vendor=a' });

  it('publishes traceparent and tracestate on a message of one event', () => {
    expect(publishEntry(traced, { name: 'orders' } as never, 'e0').MessageAttributes).toEqual({
      ...messageAttributes('order.placed', 'order'),
      traceparent: { DataType: 'String', StringValue: parent(1) },
      tracestate: { DataType: 'String', StringValue: 'vendor=a' },
    });
  });

  it('publishes no trace attributes on a batch message, whose envelopes carry each their own', () => {
    const attributes = batchEntry([traced, message(2, { traceparent: parent(2) })], { name: 'orders' } as never, 'e0').MessageAttributes;
    expect(Object.keys(attributes ?? {}).sort()).toEqual(['aggregatetype', 'content-type', 'type']);
  });
});

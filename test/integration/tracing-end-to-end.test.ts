import { context, type SpanContext, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defineConfig } from 'dynamodb-outbox';
import { createConsumer } from 'dynamodb-outbox/consumer';
import { type OutboxTestHandlerDeps, type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * One picture from a request to its consumers, with the OpenTelemetry SDK's in-memory exporter,
 * on DynamoDB Local and fauxqs: the real write helper, relay handler and consumer helper, traced
 * with no tracing code of their own in the handlers.
 */

const config = defineConfig({ source: 'urn:test:tracing', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = trace.getTracer('test-service');
let stack: OutboxTestStack;
const backgroundErrors: string[] = [];

/** A consumer whose handler makes a span of its own, which should nest under the consumer's. */
const consumer = (name: string, producer: 'link' | 'parent') => ({
  name,
  topic: 'orders',
  handler: ({ document, tableName }: OutboxTestHandlerDeps) =>
    createConsumer({
      name,
      sources: [config.source],
      inbox: { document, tableName },
      tracing: { producer },
      handlers: { 'order.placed': { handle: () => tracer.startActiveSpan(`${name} handler work`, (span) => span.end()) } },
    }).handler,
});

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  stack = await startOutboxTestStack({
    config,
    subscribers: [{ name: 'audit', topic: 'orders' }, consumer('linked', 'link'), consumer('parented', 'parent')],
    onError: (source, error) => backgroundErrors.push(`${source}: ${(error as Error).message}`),
  });
});

afterAll(async () => {
  await stack?.stop();
  trace.disable();
  context.disable();
});

const finished = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
const sameSpan = (a: SpanContext | undefined, b: SpanContext) => a?.traceId === b.traceId && a?.spanId === b.spanId;
const linksTo = (span: ReadableSpan, target: SpanContext) => span.links.some((link) => sameSpan(link.context, target));

describe('tracing from a request through the outbox to its consumers', () => {
  it('links the relay batch and the consumer to the request that wrote the event, or parents the consumer under it', async () => {
    const request = await tracer.startActiveSpan('POST /orders', async (span) => {
      await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-traced' }, type: 'order.placed', data: { total: 1 } }] });
      span.end();
      return span.spanContext();
    });
    const traceparent = `00-${request.traceId}-${request.spanId}-01`;

    // The published message carries the request's context, in the envelope and as message attributes.
    const [message] = await stack.receive('audit', { count: 1, timeoutMs: 30_000 });
    expect(message?.envelope?.traceparent).toBe(traceparent);
    expect(message?.attributes.traceparent).toBe(traceparent);

    await expect.poll(() => finished('process linked').length + finished('process parented').length, { timeout: 30_000 }).toBe(2);

    // The relay's batch span: its own trace, a producer, linked to the request.
    const [relay] = finished('send orders');
    expect(relay?.kind).toBe(SpanKind.PRODUCER);
    expect(relay?.spanContext().traceId).not.toBe(request.traceId);
    expect(linksTo(relay!, request)).toBe(true);
    expect(relay?.attributes).toMatchObject({ 'messaging.system': 'aws_sns', 'messaging.operation.type': 'send' });

    // Linked (the default): the consumer's span stays in its own trace and links to the request.
    const [linked] = finished('process linked');
    expect(linked?.kind).toBe(SpanKind.CONSUMER);
    expect(linked?.spanContext().traceId).not.toBe(request.traceId);
    expect(linksTo(linked!, request)).toBe(true);
    expect(linked?.attributes).toMatchObject({
      'messaging.system': 'aws_sqs',
      'messaging.destination.name': 'linked',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.message.id': expect.any(String),
      'cloudevents.event_id': message?.envelope?.id,
      'cloudevents.event_type': 'order.placed',
    });

    // Parented: the consumer's span is the request's child, one trace from the request to the handler.
    const [parented] = finished('process parented');
    expect(parented?.spanContext().traceId).toBe(request.traceId);
    expect(parented?.parentSpanContext?.spanId).toBe(request.spanId);
    expect(parented?.links).toHaveLength(0);

    // Each handler's own span nests under its message's span.
    for (const [name, consumerSpan] of [
      ['linked', linked],
      ['parented', parented],
    ] as const) {
      const [work] = finished(`${name} handler work`);
      expect(work?.spanContext().traceId).toBe(consumerSpan?.spanContext().traceId);
      expect(work?.parentSpanContext?.spanId).toBe(consumerSpan?.spanContext().spanId);
    }
    expect(backgroundErrors).toEqual([]);
  });
});

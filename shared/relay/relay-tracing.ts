/**
 * The relay's span: one per relayed batch (each `Relay.relay` call, so each Lambda invocation or
 * each processor read), linked to the trace context of every event in it. Links, not parents: a
 * batch holds events of unrelated requests, and making it the child of one would glue the others'
 * publishing into that request's trace.
 */

import type { SlotMessage } from '../envelope.js';
import { failSpan, otelApi, TRACER_NAME } from '../tracing/otel-api.js';
import { spanLinks } from '../tracing/span-context.js';
import type { RelayResult } from './outcome.js';

/** What the span of a batch describes: the events decoded for publishing, and the topics they go to. */
export interface RelayBatchTrace {
  readonly messages: readonly SlotMessage[];
  /** The topics' names (the last part of their ARNs), in the order first met. */
  readonly topics: readonly string[];
}

/**
 * Runs the batch inside its span when it has events to publish, a tracer provider is registered
 * and `@opentelemetry/api` loads; else just runs it. The span (kind PRODUCER, `send <topic>`, or `send` for several topics)
 * is active while the batch publishes, so an instrumented SNS client's spans are its children.
 */
export async function traceRelayBatch(batch: RelayBatchTrace, run: () => Promise<RelayResult>): Promise<RelayResult> {
  // Nothing to publish (every record left to the other path, as most are for the processor): no span to show.
  if (batch.messages.length === 0) return run();
  const loaded = otelApi('trace');
  const api = loaded instanceof Promise ? await loaded : loaded;
  if (api === undefined) return run();
  const { links, dropped } = spanLinks(api, batch.messages);
  const topic = batch.topics.length === 1 ? batch.topics[0] : undefined;
  const span = api.trace.getTracer(TRACER_NAME).startSpan(topic === undefined ? 'send' : `send ${topic}`, {
    kind: api.SpanKind.PRODUCER,
    links,
    attributes: {
      'messaging.system': 'aws_sns',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.batch.message_count': batch.messages.length,
      ...(topic === undefined ? {} : { 'messaging.destination.name': topic }),
      ...(dropped === 0 ? {} : { 'outbox.links_dropped': dropped }),
    },
  });
  try {
    const result = await api.context.with(api.trace.setSpan(api.context.active(), span), run);
    const failed = result.outcomes.filter((outcome) => outcome.status === 'failed').length;
    span.setAttributes({ 'outbox.records_failed': failed, 'outbox.events_dead_lettered': result.deadLettered });
    if (failed > 0) span.setStatus({ code: api.SpanStatusCode.ERROR, message: `${failed} records failed and are retried` });
    return result;
  } catch (error) {
    failSpan(api, span, error);
    throw error;
  } finally {
    span.end();
  }
}

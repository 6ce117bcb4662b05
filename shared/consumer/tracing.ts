/**
 * The consumer's span: one per message, kind CONSUMER, with the messaging semantic conventions'
 * attributes; linked to the producer's trace context (each event's, from its envelope) or, when
 * asked, its child. The handlers run inside it, so their own spans nest under it.
 */

import type { Attributes, Link, SpanContext } from '@opentelemetry/api';
import { TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE } from '../envelope.js';
import { type OtelApi, otelApi, TRACER_NAME } from '../tracing/otel-api.js';
import { spanLinks } from '../tracing/span-context.js';
import type { PreparedMessage } from './handle-message.js';
import type { ConsumerMessage, ConsumerTracingOptions, MessageOutcome } from './types.js';

/** The producer contexts of a message: each event's envelope's; for a message not parsed, its trace attributes. */
function producerContexts(message: ConsumerMessage, ready: PreparedMessage) {
  if (ready.status === 'ready' && ready.events.some(({ envelope }) => envelope.traceparent !== undefined)) {
    return ready.events.map(({ envelope }) => ({ traceparent: envelope.traceparent, tracestate: envelope.tracestate }));
  }
  const attributes = message.messageAttributes;
  return [{ traceparent: attributes?.[TRACEPARENT_ATTRIBUTE]?.stringValue, tracestate: attributes?.[TRACESTATE_ATTRIBUTE]?.stringValue }];
}

function messageAttributesOf(message: ConsumerMessage, ready: PreparedMessage): Attributes {
  const single = ready.status === 'ready' && ready.events.length === 1 ? ready.envelope : undefined;
  return {
    'messaging.system': 'aws_sqs',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.message.id': message.messageId,
    ...(message.queueName === undefined ? {} : { 'messaging.destination.name': message.queueName }),
    ...(message.messageGroupId === undefined ? {} : { 'messaging.aws.sqs.message_group_id': message.messageGroupId }),
    ...(ready.status === 'ready' && ready.events.length > 1 ? { 'outbox.events': ready.events.length } : {}),
    ...(single === undefined
      ? {}
      : {
          'cloudevents.event_id': single.id,
          'cloudevents.event_type': single.type,
          'cloudevents.event_source': single.source,
          'cloudevents.event_subject': single.subject,
        }),
  };
}

function endSpan(api: OtelApi, span: ReturnType<ReturnType<OtelApi['trace']['getTracer']>['startSpan']>, outcome: MessageOutcome): void {
  span.setAttribute('outbox.outcome', outcome.status);
  if (outcome.status === 'failed' || outcome.status === 'rejected') {
    span.recordException(outcome.error);
    const code = outcome.status === 'rejected' ? `${outcome.error.code}: ` : '';
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: `${code}${outcome.error.message}` });
  }
  span.end();
}

/** A link to the span that was active (the Lambda invocation's, say), which a span given another parent no longer nests under. */
function invocationLink(api: OtelApi, active: ReturnType<OtelApi['context']['active']>): Link[] {
  const context = api.trace.getSpanContext(active);
  return context !== undefined && api.isSpanContextValid(context) ? [{ context }] : [];
}

/**
 * Runs one message inside its span when a tracer provider is registered and `@opentelemetry/api`
 * loads; else just runs it, at no cost but a lookup. Never fails for tracing's sake: a producer
 * context that is not W3C trace context is not linked.
 */
export async function traceMessage(
  options: ConsumerTracingOptions | undefined,
  message: ConsumerMessage,
  ready: PreparedMessage,
  run: () => Promise<MessageOutcome>,
): Promise<MessageOutcome> {
  const loaded = otelApi('trace');
  const api = loaded instanceof Promise ? await loaded : loaded;
  if (api === undefined) return run();
  const { links, dropped } = spanLinks(api, producerContexts(message, ready));
  // A parent only when the message has one producer: several would each claim it.
  const parent: SpanContext | undefined = options?.producer === 'parent' && links.length === 1 ? links[0]!.context : undefined;
  const active = api.context.active();
  const parentContext = parent === undefined ? active : api.trace.setSpanContext(active, parent);
  const span = api.trace.getTracer(TRACER_NAME).startSpan(
    message.queueName === undefined ? 'process' : `process ${message.queueName}`,
    {
      kind: api.SpanKind.CONSUMER,
      links: parent === undefined ? links : invocationLink(api, active),
      attributes: { ...messageAttributesOf(message, ready), ...(dropped === 0 ? {} : { 'outbox.links_dropped': dropped }) },
    },
    parentContext,
  );
  let outcome: MessageOutcome;
  try {
    outcome = await api.context.with(api.trace.setSpan(parentContext, span), run);
  } catch (error) {
    // run() reports failures as outcomes; a throw is a bug, still recorded before it goes on.
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end();
    throw error;
  }
  endSpan(api, span, outcome);
  return outcome;
}

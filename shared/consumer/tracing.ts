/**
 * The consumer's span: one per message, kind CONSUMER, with the messaging semantic conventions'
 * attributes; linked to the producer's trace context (each event's, from its envelope) or, when
 * asked, its child. The handlers run inside it, so their own spans nest under it. Under `commit:
 * 'batch'`, a group's transaction commits several messages' events at once: it gets a span of its
 * own, linked to each of their spans, as the conventions relate one operation to many messages.
 */

import type { Attributes, Context, Link, SpanContext } from '@opentelemetry/api';
import { TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE } from '../envelope.js';
import { failSpan, type OtelApi, otelApi, TRACER_NAME } from '../tracing/otel-api.js';
import { MAX_SPAN_LINKS, spanLinks } from '../tracing/span-context.js';
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

/** A message's span as work done later for it (under `commit: 'batch'`, its commit) sees it. */
export interface MessageScope {
  /** The span, to link an operation on several messages to; absent when not traced. */
  readonly span?: SpanContext;
  readonly queueName?: string;
  /** Runs `work` inside the message's span, wherever it is called from. */
  within<T>(work: () => Promise<T>): Promise<T>;
}

/** The scope of a message with no span. */
export const UNTRACED: MessageScope = { within: (work) => work() };

/**
 * Runs one message inside its span when a tracer provider is registered and `@opentelemetry/api`
 * loads; else just runs it, at no cost but a lookup. Never fails for tracing's sake: a producer
 * context that is not W3C trace context is not linked. `run` gets the message's {@link MessageScope}.
 */
export async function traceMessage(
  options: ConsumerTracingOptions | undefined,
  message: ConsumerMessage,
  ready: PreparedMessage,
  run: (scope: MessageScope) => Promise<MessageOutcome>,
): Promise<MessageOutcome> {
  const loaded = otelApi('trace');
  const api = loaded instanceof Promise ? await loaded : loaded;
  if (api === undefined) return run(UNTRACED);
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
  const spanContext = api.trace.setSpan(parentContext, span);
  const scope: MessageScope = {
    span: span.spanContext(),
    ...(message.queueName === undefined ? {} : { queueName: message.queueName }),
    within: (work) => api.context.with(spanContext, work),
  };
  let outcome: MessageOutcome;
  try {
    outcome = await api.context.with(spanContext, () => run(scope));
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

/** The context a batch's worker runs in, outside any message's span (the invocation's, say); `undefined` when not traced. */
export async function outerContext(): Promise<Context | undefined> {
  const loaded = otelApi('trace');
  const api = loaded instanceof Promise ? await loaded : loaded;
  return api?.context.active();
}

/**
 * Runs a group's transaction (`commit: 'batch'`) in a span of its own, `commit <queue>` (kind
 * INTERNAL), in `outer`: not inside the span of whichever message made the group commit, since
 * it commits the events of every message in it; linked instead to each of their spans, as the
 * messaging conventions relate an operation on a batch to its messages. A failure (the fallback
 * follows) is recorded on it. Without tracing, just runs it.
 */
export async function traceGroupCommit<T>(
  outer: Context | undefined,
  members: readonly MessageScope[],
  events: number,
  run: () => Promise<T>,
): Promise<T> {
  const loaded = otelApi('trace');
  const api = loaded instanceof Promise ? await loaded : loaded;
  if (api === undefined || outer === undefined) return run();
  const spans = new Map<string, SpanContext>();
  for (const { span } of members) if (span !== undefined) spans.set(span.spanId, span);
  const links: Link[] = [...spans.values()].slice(0, MAX_SPAN_LINKS).map((context) => ({ context }));
  const queues = new Set(members.map((member) => member.queueName));
  const queue = queues.size === 1 ? [...queues][0] : undefined;
  const span = api.trace.getTracer(TRACER_NAME).startSpan(
    queue === undefined ? 'commit' : `commit ${queue}`,
    {
      kind: api.SpanKind.INTERNAL,
      links,
      attributes: {
        'messaging.system': 'aws_sqs',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'commit',
        'messaging.batch.message_count': spans.size,
        'outbox.events': events,
        ...(queue === undefined ? {} : { 'messaging.destination.name': queue }),
        ...(spans.size > links.length ? { 'outbox.links_dropped': spans.size - links.length } : {}),
      },
    },
    outer,
  );
  try {
    return await api.context.with(api.trace.setSpan(outer, span), run);
  } catch (error) {
    failSpan(api, span, error);
    throw error;
  } finally {
    span.end();
  }
}

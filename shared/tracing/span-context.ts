/**
 * Trace context carried by the outbox turned back into OpenTelemetry span contexts: the links of
 * the relay's and the consumer's spans, and the consumer's parent when it is asked to continue.
 */

import type { Link, SpanContext } from '@opentelemetry/api';
import type { OtelApi } from './otel-api.js';
import { isTraceparent, tracestateToPass } from './trace-context.js';

/** OpenTelemetry's default limit of links per span; links past it would be dropped by the SDK anyway. */
export const MAX_SPAN_LINKS = 128;

/**
 * The remote span context a `traceparent` (and its `tracestate`) names, or `undefined` for one
 * that is not W3C trace context: a consumer must not trust a header to be well-formed. A
 * `tracestate` without list members (`" , "`) gives no trace state, so that a span continuing
 * this context does not send an empty `tracestate` on.
 */
export function remoteSpanContext(api: OtelApi, traceparent: unknown, tracestate?: unknown): SpanContext | undefined {
  if (!isTraceparent(traceparent)) return undefined;
  const [, traceId, spanId, flags] = traceparent.split('-') as [string, string, string, string];
  const passed = tracestateToPass(tracestate);
  const state = passed === undefined ? undefined : api.createTraceState(passed);
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & api.TraceFlags.SAMPLED,
    isRemote: true,
    ...(state === undefined ? {} : { traceState: state }),
  };
}

/** Links to each distinct context, in order, at most {@link MAX_SPAN_LINKS}; `dropped` says how many were left out. */
export function spanLinks(
  api: OtelApi,
  contexts: Iterable<{ readonly traceparent?: unknown; readonly tracestate?: unknown }>,
): { links: Link[]; dropped: number } {
  const seen = new Set<string>();
  const links: Link[] = [];
  let dropped = 0;
  for (const { traceparent, tracestate } of contexts) {
    if (typeof traceparent !== 'string' || seen.has(traceparent)) continue;
    const context = remoteSpanContext(api, traceparent, tracestate);
    if (context === undefined) continue;
    seen.add(traceparent);
    if (links.length < MAX_SPAN_LINKS) links.push({ context });
    else dropped++;
  }
  return { links, dropped };
}

import { isTraceparent, type TraceContext, tracestateToPass } from './trace-context.js';

/**
 * The trace context an envelope carries (`traceparent`, and `tracestate` with it), to send as the
 * relay sends it: as message attributes, through `messageAttributes(type, aggregateType, trace)`.
 * A value that is not W3C trace context (another publisher's envelope) is left out rather than
 * passed on, as the write helper refuses one; so is a `tracestate` without list members (`" , "`),
 * as W3C asks; `tracestate` without a `traceparent` means nothing.
 *
 * @example
 * ```ts
 * messageAttributes(envelope.type, envelope.aggregatetype, envelopeTrace(envelope));
 * ```
 */
export function envelopeTrace(envelope: { readonly traceparent?: unknown; readonly tracestate?: unknown }): TraceContext | undefined {
  const { traceparent, tracestate } = envelope;
  if (!isTraceparent(traceparent)) return undefined;
  const state = tracestateToPass(tracestate);
  return state === undefined ? { traceparent } : { traceparent, tracestate: state };
}

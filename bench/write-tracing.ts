import { context, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ambientTraceContext, XRAY_TRACE_ENV } from '../shared/tracing/trace-context.js';
import { cpuPerCall } from './write-cost.js';

/*
 * The write helper's trace pickup, measured side by side on the client side alone (a transport
 * answering in memory): no OpenTelemetry and no X-Ray header (the path of a user without either),
 * the X-Ray header only, and an active OpenTelemetry span under an AsyncLocalStorage context
 * manager. The context manager is registered for its own blocks only, so the other paths see no
 * OpenTelemetry global at all, as a process without the package does.
 */

type Write = (id: string) => Promise<unknown>;
const XRAY = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
const span = trace.wrapSpanContext({
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
});
const manager = new AsyncLocalStorageContextManager();

const paths = {
  none: (write: Write): Write => write,
  xray:
    (write: Write): Write =>
    async (id) => {
      process.env[XRAY_TRACE_ENV] = XRAY;
      try {
        return await write(id);
      } finally {
        delete process.env[XRAY_TRACE_ENV];
      }
    },
  otel:
    (write: Write): Write =>
    (id) =>
      context.with(trace.setSpan(ROOT_CONTEXT, span), () => write(id)),
};
export type TracingPath = keyof typeof paths;

/** CPU per call (µs) of `write` on each path, `blocks` alternating blocks of `count` calls, median per path. */
export async function tracingCpu(write: Write, count: number, blocks: number): Promise<Record<TracingPath, number>> {
  const samples: Record<TracingPath, number[]> = { none: [], xray: [], otel: [] };
  const run = async (path: TracingPath, n: number, prefix: string) => {
    if (path === 'otel') context.setGlobalContextManager(manager.enable());
    try {
      return await cpuPerCall(paths[path](write), n, prefix);
    } finally {
      if (path === 'otel') context.disable();
    }
  };
  for (const path of Object.keys(paths) as TracingPath[]) await run(path, count, `warm-trace-${path}`);
  for (let block = 0; block < blocks; block++) {
    for (const path of Object.keys(paths) as TracingPath[]) samples[path].push(await run(path, count, `trace-${path}-${block}`));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { none: median(samples.none), xray: median(samples.xray), otel: median(samples.otel) };
}

/** CPU per call (ns) of the pickup alone with no OpenTelemetry global and no X-Ray header: what the change adds to a write without either. */
export function pickupCpuNs(calls = 1_000_000): number {
  for (let i = 0; i < calls / 10; i++) ambientTraceContext();
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) ambientTraceContext();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
}

import type { RequestListener } from 'node:http';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { processorMetrics, processorObserver, type StartProcessorOptions, startProcessor } from 'dynamodb-outbox/processor';
import type { OutboxTestSubscriber } from 'dynamodb-outbox/testing';
import { httpListener } from './api/http-adapter.js';
import { type OrdersApiDeps, ordersApi } from './api/orders-api.js';
import { orderProjection } from './consumer/projection.js';

/**
 * The example consumers and their queues: the order view on `orders.fifo`, as the CDK stack
 * deploys it, and the same projection on `payments` for `payment.captured`, which a filter
 * policy selects.
 */
export const EXAMPLE_SUBSCRIBERS = [
  { name: 'order-view', topic: 'orders.fifo' },
  { name: 'order-view-payments', topic: 'payments', eventTypes: ['payment.captured'] },
] as const;

/** Concurrent invocations of each example consumer, as several Lambda execution environments would run. */
const CONSUMER_CONCURRENCY = 4;

/** How loud the handlers are locally: warnings and errors only, so the live view stays readable. */
export const LOCAL_LOG_LEVEL = 'WARN';

/** The parts of this example `npm start` runs around the outbox's own (the relay is the real one by default). */
export interface LocalApp {
  /** The example consumers, each behind a local SQS event source. */
  readonly subscribers: readonly OutboxTestSubscriber[];
  /** The low-latency stream processor with its logs and EMF metrics, as the ECS task runs it; started when the config names low-latency types. */
  readonly processor: (options: StartProcessorOptions) => Promise<{ stop(): Promise<void> }>;
  /** The example API on the write helper. */
  readonly api: (deps: Omit<OrdersApiDeps, 'onUnexpectedError'>) => RequestListener;
}

/**
 * The example's parts `npm start` runs: its consumer handlers, the low-latency stream processor
 * with its telemetry, and its API. Metrics are off locally (set `POWERTOOLS_METRICS_DISABLED=true`
 * before calling), as their EMF lines would flood the terminal.
 *
 * @example
 * ```ts
 * const stack = await startLocalStack({ config, ...localApp(), apiPort: 3000 });
 * ```
 */
export function localApp(onUnexpectedError?: (error: unknown) => void): LocalApp {
  const metrics = (serviceName: string) => new Metrics({ namespace: 'Outbox', serviceName });
  const logger = (serviceName: string) => new Logger({ serviceName, logLevel: LOCAL_LOG_LEVEL });
  return {
    subscribers: EXAMPLE_SUBSCRIBERS.map((subscriber) => ({
      ...subscriber,
      concurrency: CONSUMER_CONCURRENCY,
      handler: ({ document, tableName }) =>
        orderProjection({ inbox: { document, tableName }, logger: logger(subscriber.name), metrics: metrics(subscriber.name) }).handler,
    })),
    processor: async (options) => {
      const observer = processorObserver(logger('outbox-processor'), processorMetrics(options.leaseTableName));
      const worker = await startProcessor({ ...options, workerId: `local-${process.pid}`, observer });
      // As the ECS entry point does: what was gathered since the last periodic flush is written out at stop.
      return {
        stop: async () => {
          await worker.stop();
          observer.flush();
        },
      };
    },
    api: (deps) => httpListener(ordersApi({ ...deps, ...(onUnexpectedError === undefined ? {} : { onUnexpectedError }) })),
  };
}

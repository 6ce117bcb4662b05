import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createLeaseTable } from '../../shared/local/stack/lease-table.js';
import type { LocalStackOptions, LocalSubscriber } from '../../shared/local/stack/local-stack.js';
import { LOCAL_RELAY_FUNCTION_NAME } from '../../shared/local/stack/resources.js';
import { processorMetrics, processorObserver, startProcessor } from '../../shared/processor/index.js';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { RELAY_METRICS, Relay, relayMetrics } from '../../shared/relay/index.js';
import { httpListener } from './api/http-adapter.js';
import { ordersApi } from './api/orders-api.js';
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

/** The low-latency processor's lease table in DynamoDB Local. */
export const LOCAL_LEASE_TABLE = 'outbox-leases';

/** How loud the handlers are locally: warnings and errors only, so the live view stays readable. */
export const LOCAL_LOG_LEVEL = 'WARN';

/**
 * The real parts `npm start` runs: the relay Lambda handler, the low-latency stream processor
 * (started only when the config names low-latency aggregate types), the example consumer
 * handlers and the example API. Metrics are off locally (set `POWERTOOLS_METRICS_DISABLED=true` before
 * calling), as their EMF lines would flood the terminal.
 */
export function localApp(
  onUnexpectedError?: (error: unknown) => void,
): Pick<LocalStackOptions, 'relay' | 'processor' | 'subscribers' | 'api'> {
  const metrics = (serviceName: string) => new Metrics({ namespace: 'Outbox', serviceName });
  const logger = (serviceName: string) => new Logger({ serviceName, logLevel: LOCAL_LOG_LEVEL });
  const subscribers: LocalSubscriber[] = EXAMPLE_SUBSCRIBERS.map((subscriber) => ({
    ...subscriber,
    handler: ({ document, tableName }) =>
      orderProjection({ inbox: { document, tableName }, logger: logger(subscriber.name), metrics: metrics(subscriber.name) }).handler,
  }));
  return {
    relay: ({ config, sns, sqs, topicArns, deadLetterQueueUrl }) =>
      createRelayHandler({
        relay: new Relay({ config, sns, sqs, topicArns, deadLetterQueueUrl, ignoreAggregateTypes: config.lowLatencyAggregateTypes }),
        logger: logger(RELAY_METRICS.service),
        metrics: relayMetrics(LOCAL_RELAY_FUNCTION_NAME),
      }),
    processor: async ({ config, clients, streamArn, sns, sqs, topicArns, deadLetterQueueUrl }) => {
      await createLeaseTable(clients.dynamodb, LOCAL_LEASE_TABLE);
      const observer = processorObserver(logger('outbox-processor'), processorMetrics(LOCAL_LEASE_TABLE));
      const worker = await startProcessor({
        config,
        streams: clients.streams,
        streamArn,
        document: clients.document,
        leaseTableName: LOCAL_LEASE_TABLE,
        workerId: `local-${process.pid}`,
        sns,
        sqs,
        topicArns,
        deadLetterQueueUrl,
        observer,
      });
      // As the ECS entry point does: what was gathered since the last periodic flush is written out at stop.
      return {
        stop: async () => {
          await worker.stop();
          observer.flush();
        },
      };
    },
    subscribers,
    api: ({ outbox, document, tableName }) =>
      httpListener(ordersApi({ outbox, document, tableName, ...(onUnexpectedError === undefined ? {} : { onUnexpectedError }) })),
  };
}

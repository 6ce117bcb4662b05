import type { SQSClient } from '@aws-sdk/client-sqs';
import { type SqsBatchReport, SqsPoller } from '../event-source/sqs-event-source.js';
import { asSqsHandler } from './lambda-context.js';
import type { LocalResources } from './resources.js';
import type { LocalStats } from './stats.js';
import type { LocalConsumerDeps, LocalDelivery, LocalSubscriber, LocalWorker } from './types.js';

export interface LocalConsumersOptions {
  readonly sqs: SQSClient;
  readonly resources: LocalResources;
  readonly subscribers: readonly LocalSubscriber[];
  readonly deps: LocalConsumerDeps;
  readonly stats: LocalStats;
  readonly onDelivery?: (delivery: LocalDelivery) => void;
  readonly onError: (source: string, error: unknown) => void;
}

/**
 * Feeds each subscriber queue that has a handler to it through local SQS event sources, one per
 * concurrent invocation, each with its own handler instance, as each concurrent Lambda
 * invocation has its own execution environment. Queues without a handler are left alone.
 *
 * @example
 * ```ts
 * const pollers = startLocalConsumers({ sqs, resources, subscribers, deps, stats, onError });
 * for (const poller of pollers.reverse()) await poller.stop();
 * ```
 */
export function startLocalConsumers(options: LocalConsumersOptions): LocalWorker[] {
  const { resources, stats } = options;
  // Every handler is built before any poller starts: a factory that throws leaves nothing running.
  const planned = resources.subscriptions.flatMap(({ subscription, queue }) => {
    const subscriber = options.subscribers.find((s) => s.name === subscription.name);
    const build = subscriber?.handler;
    if (build === undefined) return [];
    const counters = stats.consumer(subscription.name);
    const onBatch = (batch: SqsBatchReport) => {
      const at = Date.now();
      counters.delivered += batch.acknowledged.length;
      counters.failed += batch.failed.length;
      for (const record of batch.acknowledged) {
        const lagMs = stats.recordLag(record.body, at);
        options.onDelivery?.({ subscriber: subscription.name, body: record.body, ...(lagMs === undefined ? {} : { lagMs }) });
      }
    };
    return Array.from({ length: subscriber?.concurrency ?? 1 }, () => ({
      name: subscription.name,
      queue,
      onBatch,
      // Counted while each invocation runs, for the test stack's waitForIdle.
      handler: stats.handlers.counted(subscription.name, asSqsHandler(build(options.deps), queue.arn)),
    }));
  });
  return planned.map(({ name, queue, onBatch, handler }) => {
    const poller = new SqsPoller({
      sqs: options.sqs,
      queue,
      handler,
      visibilityTimeoutSeconds: resources.visibilityTimeoutSeconds,
      onBatch,
      onError: (error) => options.onError(`consumer ${name}`, error),
    });
    poller.start();
    return poller;
  });
}

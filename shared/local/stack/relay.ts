import { Logger } from '@aws-lambda-powertools/logger';
import { createRelayHandler, RELAY_METRICS, Relay, type RelayMetrics, relayMetrics } from '../../relay/index.js';
import type { StreamHandler } from '../event-source/stream-runner.js';
import { LOCAL_RELAY_FUNCTION_NAME } from '../event-source/types.js';
import { LOCAL_LOG_LEVEL } from './options.js';
import type { LocalRelayDeps } from './types.js';

/** Metrics that keep nothing: a test run has no CloudWatch to read the relay's EMF lines. */
const DISCARDED_METRICS: RelayMetrics = { addMetric: () => {} };

export interface LocalRelayTelemetry {
  /** @default the relay's Powertools metrics (`relayMetrics`), written as EMF lines unless `POWERTOOLS_METRICS_DISABLED=true` */
  readonly metrics?: 'emf' | 'discard';
}

/**
 * The real relay, as the deployed Lambda runs it: `createRelayHandler` on a `Relay` that leaves
 * the low-latency aggregate types (but the handed-over ones) to the processor by its default, logging at {@link LOCAL_LOG_LEVEL}.
 *
 * @example
 * ```ts
 * const stack = await startLocalStack({ config, relay: (deps) => watch(localRelayHandler(deps)) });
 * ```
 */
export function localRelayHandler(deps: LocalRelayDeps, { metrics = 'emf' }: LocalRelayTelemetry = {}): StreamHandler {
  const { config, sns, sqs, topicArns, deadLetterQueueUrl } = deps;
  return createRelayHandler({
    relay: new Relay({ config, sns, sqs, topicArns, deadLetterQueueUrl }),
    logger: new Logger({ serviceName: RELAY_METRICS.service, logLevel: LOCAL_LOG_LEVEL }),
    metrics: metrics === 'emf' ? relayMetrics(LOCAL_RELAY_FUNCTION_NAME) : DISCARDED_METRICS,
  });
}

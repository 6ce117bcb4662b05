import { Logger } from '@aws-lambda-powertools/logger';
import { snsClient, sqsClient } from '../../shared/aws/clients.js';
import { requireEnv } from '../../shared/config.js';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { RELAY_METRICS, Relay, relayEnvironment, relayMetrics } from '../../shared/relay/index.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../../shared/relay/metrics.js';

// Read and validated once per cold start: a bad deployment fails loudly on the first invocation.
const { config, topicArns, deadLetterQueueUrl } = relayEnvironment();
const functionName = requireEnv(LAMBDA_FUNCTION_NAME_ENV);

const relay = new Relay({
  config,
  sns: snsClient(),
  sqs: sqsClient(),
  topicArns,
  deadLetterQueueUrl,
  ignoreAggregateTypes: config.lowLatencyAggregateTypes,
});

/** The Lambda relay: DynamoDB stream batch in, `batchItemFailures` out. */
export const handler = createRelayHandler({
  relay,
  logger: new Logger({ serviceName: RELAY_METRICS.service }),
  metrics: relayMetrics(functionName),
});

import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { snsClient, sqsClient } from '../../shared/aws/clients.js';
import { Relay, relayEnvironment } from '../../shared/relay/index.js';
import { createRelayHandler } from './create-handler.js';

// Read and validated once per cold start: a bad deployment fails loudly on the first invocation.
const { config, topicArns, deadLetterQueueUrl } = relayEnvironment();

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
  logger: new Logger({ serviceName: 'outbox-relay' }),
  metrics: new Metrics({ namespace: 'Outbox', serviceName: 'outbox-relay' }),
});

import type { OutboxConfig } from '../../config.js';
import { processorAggregateTypes } from '../../publishing-paths.js';
import type { LocalStack } from './local-stack.js';

/** What the stack runs and where, printed once at start; curl examples use the real API address. */
export function renderBanner(stack: LocalStack, config: OutboxConfig): string {
  const { resources } = stack;
  const storage = stack.dynamoDb.persistDir === undefined ? 'in memory' : `data in ${stack.dynamoDb.persistDir}`;
  const topics = config.topics.map((t) => `${t.name}${t.fifo ? ' (FIFO)' : ''}`).join(' · ');
  const queues = resources.subscriptions
    .map(({ subscription, queue }) => {
      const filters = [
        ...(subscription.eventTypes === undefined ? [] : [`type: ${subscription.eventTypes.join(', ')}`]),
        ...(subscription.aggregateTypes === undefined ? [] : [`aggregatetype: ${subscription.aggregateTypes.join(', ')}`]),
      ];
      return `${queue.name} ← ${subscription.topic}${filters.length === 0 ? '' : ` [${filters.join('; ')}]`}`;
    })
    .join(' · ');
  const processed = processorAggregateTypes(config);
  const handover =
    config.handoverAggregateTypes.length === 0 ? '' : ` (handed over, also by the relay: ${config.handoverAggregateTypes.join(', ')})`;
  const lowLatency =
    processed.length === 0
      ? 'none configured: every aggregate type goes through the relay'
      : `stream processor running for ${processed.join(', ')}${handover}`;
  const api = stack.apiUrl;
  const tryLines =
    api === undefined
      ? []
      : [
          'Try:',
          `  curl -s -X POST ${api}/orders -H 'content-type: application/json' -d '{"total":42.5,"currency":"EUR"}'`,
          `  curl -s -X POST ${api}/orders/ORDER_ID/pay`,
          `  curl -s -X POST ${api}/orders/ORDER_ID/cancel -H 'content-type: application/json' -d '{"reason":"changed my mind"}'`,
          `  curl -s ${api}/orders/ORDER_ID`,
          '',
        ];
  return [
    'dynamodb-outbox local stack',
    `  DynamoDB Local   ${stack.dynamoDb.endpoint}   ${storage} · java pid ${stack.dynamoDb.pid}`,
    `  SNS/SQS/S3       ${stack.emulatorEndpoint}   fauxqs, in process`,
    `  table            ${stack.tableName} (${stack.tableCreated ? 'created' : 'reused'}) · stream → relay handler, 4 polls/s`,
    `  topics           ${topics}`,
    `  queues (+ DLQ)   ${queues}`,
    `  relay DLQ        ${resources.relayDeadLetterQueue.name} · failed batches in s3://${resources.failedBatchBucket}`,
    `  low latency      ${lowLatency}`,
    ...(resources.archive === undefined
      ? []
      : [
          `  archive          s3://${resources.archive.bucket}/events/v1/ ← archiver handler ← queue ${resources.archive.queue.name} (+ DLQ) ← every topic`,
        ]),
    `  example API      ${api ?? 'none'}`,
    // DynamoDB Local has no host option: it cannot be bound to loopback as the emulator is.
    '  network          SNS/SQS/S3 listens on 127.0.0.1 only; DynamoDB Local listens on all interfaces, without authentication: run this on a trusted network',
    '',
    ...tryLines,
  ].join('\n');
}

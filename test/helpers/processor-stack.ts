import { randomUUID } from 'node:crypto';
import type { OutboxConfig } from '../../shared/config.js';
import { createLeaseTable } from '../../shared/local/stack/lease-table.js';
import { type ProcessorWorker, type StartProcessorOptions, startProcessor } from '../../shared/processor/index.js';
import type { RelayTestStack } from './relay-stack.js';

/** A fresh lease table in the run's DynamoDB Local, created from the processor's own definition. */
export async function freshLeaseTable(stack: Pick<RelayTestStack, 'clients'>): Promise<string> {
  const name = `leases-${randomUUID().slice(0, 8)}`;
  await createLeaseTable(stack.clients.dynamodb, name);
  return name;
}

/** An in-process processor worker on a relay test stack's table and emulator (its SNS client, unless `options` gives one). */
export function startTestProcessor(
  stack: RelayTestStack,
  config: OutboxConfig,
  leaseTableName: string,
  options: Partial<Pick<StartProcessorOptions, 'workerId' | 'settings' | 'observer' | 'sns' | 'backoff'>> = {},
): Promise<ProcessorWorker> {
  return startProcessor({
    config,
    streams: stack.clients.streams,
    streamArn: stack.streamArn,
    document: stack.clients.document,
    leaseTableName,
    sns: stack.clients.sns,
    sqs: stack.clients.sqs,
    topicArns: stack.topicArns,
    deadLetterQueueUrl: stack.deadLetterQueueUrl,
    backoff: { baseDelayMs: 5, maxDelayMs: 100 },
    ...options,
  });
}

import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { InvalidParameterException, type PublishBatchCommand } from '@aws-sdk/client-sns';
import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { type ProcessorWorker, startProcessor } from '../../shared/processor/index.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';
import type { DeadLetterClient, PublishBatchClient } from '../../shared/relay/index.js';
import { Outbox } from '../../shared/write/index.js';
import { freshLeaseTable } from '../helpers/processor-stack.js';
import { type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';

const config = defineConfig({
  source: 'urn:test:processor-on-failure',
  topics: [
    { name: 'orders.fifo', fifo: true },
    { name: 'payments.fifo', fifo: true },
  ],
  routes: { order: 'orders.fifo', payment: 'payments.fifo' },
  lowLatencyAggregateTypes: ['payment'],
  relay: { maxRetryAttempts: 2 },
});
const PAYMENTS = subscriberQueue('payments.fifo');
const BUCKET = 'processor-failed-batches';

let stack: RelayTestStack;
let leaseTableName: string;
let worker: ProcessorWorker | undefined;

beforeAll(async () => {
  stack = await startRelayStack(config);
  leaseTableName = await freshLeaseTable(stack);
  await stack.clients.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
});

/**
 * SNS refusing, as a whole request with a permanent 400, every request that carries one of
 * `poison`'s events; `refusedAlone` counts the requests that carried nothing else (one per attempt).
 */
function refusingSns(poison: Set<string>): PublishBatchClient & { refusedAlone: number } {
  return {
    refusedAlone: 0,
    send(command: PublishBatchCommand) {
      const ids = (command.input.PublishBatchRequestEntries ?? []).map((e) => JSON.parse(e.Message ?? '{}').id as string);
      if (ids.some((id) => poison.has(id))) {
        if (ids.length === 1) this.refusedAlone++;
        return Promise.reject(new InvalidParameterException({ message: 'Invalid parameter: Message', $metadata: { httpStatusCode: 400 } }));
      }
      return stack.clients.sns.send(command);
    },
  };
}

/** A relay DLQ that stays unavailable (503). */
const unavailableDlq: DeadLetterClient & { refused: number } = {
  refused: 0,
  send(_command: SendMessageCommand) {
    this.refused++;
    return Promise.reject(
      Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }),
    );
  },
};

async function objectsUnder(prefix: string): Promise<StreamOnFailureRecord[]> {
  const listed = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  const bodies = await Promise.all(
    (listed.Contents ?? []).map(async ({ Key }) => {
      const object = await stack.clients.s3.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
      return JSON.parse(await object.Body!.transformToString()) as StreamOnFailureRecord;
    }),
  );
  return bodies;
}

describe('the stream processor with a record it can never publish', () => {
  it('moves its shard on within the bounds, keeps the record in the on-failure bucket, and the redrive delivers it in order', async () => {
    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.dynamodb });
    const placed = await outbox.write({ events: [{ aggregate: { type: 'payment', id: 'P1' }, type: 'payment.placed', data: { n: 1 } }] });
    const poison = new Set(placed.events.map((e) => e.id));
    // Held back behind the refused event; another aggregate's event goes through meanwhile.
    const captured = await outbox.write({
      events: [{ aggregate: { type: 'payment', id: 'P1' }, type: 'payment.captured', data: { n: 2 } }],
    });
    const other = await outbox.write({ events: [{ aggregate: { type: 'payment', id: 'P2' }, type: 'payment.placed', data: { n: 3 } }] });
    const sns = refusingSns(poison);
    worker = await startProcessor({
      config,
      streams: stack.clients.streams,
      streamArn: stack.streamArn,
      document: stack.clients.document,
      leaseTableName,
      sns,
      sqs: unavailableDlq,
      topicArns: stack.topicArns,
      deadLetterQueueUrl: stack.deadLetterQueueUrl,
      backoff: { baseDelayMs: 5, maxDelayMs: 20 },
      workerId: 'on-failure-worker',
      settings: { failoverMs: 3000, retryMaxDelayMs: 50 },
      onFailure: { s3: stack.clients.s3, bucket: BUCKET },
    });

    const shardObjects = () => objectsUnder('outbox-processor/');
    await expect.poll(async () => (await shardObjects()).length, { timeout: 30_000, interval: 100 }).toBe(1);
    const [object] = await shardObjects();
    expect(object).toMatchObject({
      origin: 'outbox-stream-processor',
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 },
    });
    // As Lambda's S3 destination writes it: the invocation event as a JSON string.
    expect(typeof object!.payload).toBe('string');
    const given = (
      JSON.parse(object!.payload as string) as { Records: { dynamodb: { NewImage: { events: { L: { M: { id: { S: string } } }[] } } } }[] }
    ).Records;
    expect(given.flatMap((r) => r.dynamodb.NewImage.events.L.map((e) => e.M.id.S))).toEqual([placed.events[0]!.id, captured.events[0]!.id]);
    // Three attempts (maxRetryAttempts 2), each refused by SNS and then by the DLQ, and no more.
    expect(sns.refusedAlone).toBe(3);
    expect(unavailableDlq.refused).toBe(3 * config.relay.maxPublishAttempts);

    // The shard went on: its checkpoint is past the records given up on, and a later event is published.
    const later = await outbox.write({ events: [{ aggregate: { type: 'payment', id: 'P3' }, type: 'payment.placed', data: { n: 4 } }] });
    await expect
      .poll(() => stack.envelopes(PAYMENTS).map((e) => e.id), { timeout: 15_000, interval: 50 })
      .toEqual(expect.arrayContaining([other.events[0]!.id, later.events[0]!.id]));
    const [lease] = await new DynamoDbLeaseTable(stack.clients.document, leaseTableName).list();
    expect(BigInt(lease!.checkpoint)).toBeGreaterThanOrEqual(BigInt(object!.DDBStreamBatchInfo.endSequenceNumber));
    expect(stack.envelopes(PAYMENTS).filter((e) => e.subject === 'P1')).toEqual([]);
    expect(stack.bodies('relay-dlq')).toEqual([]);

    // Once the cause is fixed (SNS takes the event), the redrive brings both back, in order.
    const summary = await redriveOnFailure({
      source: { s3: stack.clients.s3, bucket: BUCKET },
      sns: stack.clients.sns,
      streams: stack.clients.streams,
      config,
      topicArns: stack.topicArns,
    });
    expect(summary).toMatchObject({ status: 'completed', moved: 1, republished: 2, failed: [], skipped: [] });
    expect(
      stack
        .envelopes(PAYMENTS)
        .filter((e) => e.subject === 'P1')
        .map((e) => e.id),
    ).toEqual([placed.events[0]!.id, captured.events[0]!.id]);
    expect(await shardObjects()).toEqual([]);
  });
});

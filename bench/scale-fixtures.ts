import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import type { SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { defineConfig } from '../shared/config.js';
import type { DeadLetterClient, PublishBatchClient } from '../shared/relay/index.js';
import { SLOT_KIND } from '../shared/slot.js';

/*
 * What the scale benchmark feeds the relay and the processor: outbox-slot records made in
 * memory, and an SNS that does no work, so the CPU measured is the relay's or the processor's
 * own and not an emulator's.
 */

export const SOURCE = 'urn:bench:scale';
/** The Lambda relay's outbox: `order` is published by the Lambda path. */
export const relayConfig = defineConfig({ source: SOURCE, topics: [{ name: 'orders' }], routes: { order: 'orders' } });
/** The processor's outbox: `order` is a low-latency type. */
export const processorConfig = defineConfig({
  source: SOURCE,
  topics: [{ name: 'orders' }],
  routes: { order: 'orders' },
  lowLatencyAggregateTypes: ['order'],
});
export const topicArns = { orders: 'arn:aws:sns:us-east-1:000000000000:orders' };
export const deadLetterQueueUrl = 'http://127.0.0.1:1/000000000000/relay-dlq';

/** An SNS that accepts every entry and counts them, doing nothing else: no serialising, no network. */
export class CountingSns implements PublishBatchClient {
  published = 0;
  async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
    const entries = command.input.PublishBatchRequestEntries ?? [];
    this.published += entries.length;
    return { $metadata: {}, Successful: entries.map((entry) => ({ Id: entry.Id, MessageId: entry.Id })), Failed: [] };
  }
}

/** The relay DLQ: never used when every entry is accepted, so a use is a failure of the benchmark. */
export const unusedDlq: DeadLetterClient = {
  send: async (): Promise<SendMessageCommandOutput> => {
    throw new Error('the benchmark relay dead-lettered an event: every publication was meant to succeed');
  },
};

const DATA = JSON.stringify({ total: 4200, currency: 'EUR', lines: [{ sku: 'A-1', quantity: 2 }] });
let sequenceNumber = 100_000_000_000n;

/**
 * The slot images of a backlog of `events` events, `perRecord` per commit, over `aggregates`
 * aggregates in turn, each with its own gapless sequence: one `NewImage` (as DynamoDB JSON) per commit.
 */
export function* slotImages(events: number, perRecord: number, aggregates: number) {
  const seqs = new Array<number>(aggregates).fill(0);
  for (let commit = 0; commit * perRecord < events; commit++) {
    const a = commit % aggregates;
    const id = `o-${a}`;
    const n = Math.min(perRecord, events - commit * perRecord);
    seqs[a] = (seqs[a] ?? 0) + n;
    const seq = seqs[a];
    sequenceNumber += 10n;
    // DynamoDB JSON written out, not marshalled: a backlog of 100,000 records is made in a fraction of the time.
    const image = {
      pk: { S: `OUTBOX#order#${id}` },
      sk: { S: 'OUTBOX' },
      kind: { S: SLOT_KIND },
      aggregateType: { S: 'order' },
      aggregateId: { S: id },
      source: { S: SOURCE },
      seq: { N: String(seq) },
      createdAt: { S: '2026-01-01T00:00:00.000Z' },
      expiresAt: { N: '1900000000' },
      events: {
        L: Array.from({ length: n }, (_, i) => ({
          M: {
            id: { S: `${id}-${seq - n + 1 + i}-${sequenceNumber}` },
            type: { S: 'order.changed' },
            time: { S: '2026-01-01T00:00:00.000Z' },
            data: { S: DATA },
          },
        })),
      },
    };
    yield { keys: { pk: image.pk, sk: image.sk }, image, sequenceNumber: String(sequenceNumber), n };
  }
}

/** The backlog as Lambda stream records, in batches of `batchSize` (the event source mapping's). */
export function* lambdaBatches(events: number, perRecord: number, aggregates: number, batchSize: number) {
  let batch: DynamoDBRecord[] = [];
  for (const { keys, image, sequenceNumber: seqNo } of slotImages(events, perRecord, aggregates)) {
    batch.push({
      eventID: `ev-${seqNo}`,
      eventName: 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/bench/stream/2026-01-01T00:00:00.000',
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
        NewImage: image as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
        SequenceNumber: seqNo,
        SizeBytes: 400,
        StreamViewType: 'NEW_IMAGE',
      },
    });
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The backlog as records of the Streams API, as `GetRecords` returns them. */
export function streamRecords(events: number, perRecord: number, aggregates: number): _Record[] {
  const records: _Record[] = [];
  for (const { keys, image, sequenceNumber: seqNo } of slotImages(events, perRecord, aggregates)) {
    records.push({
      eventID: `ev-${seqNo}`,
      eventName: 'MODIFY',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: {
        ApproximateCreationDateTime: new Date(),
        Keys: keys,
        NewImage: image,
        SequenceNumber: seqNo,
        SizeBytes: 400,
        StreamViewType: 'NEW_IMAGE',
      },
    });
  }
  return records;
}

/** Resolves once `done()` holds, checking every `everyMs`; fails after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number, what: string, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { FauxqsServer } from 'fauxqs';
import { defineConfig } from '../../shared/config.js';
import { type OutboxEnvelope, parseEnvelope } from '../../shared/envelope.js';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';
import { queueBodies } from './fauxqs.js';

/** The config of the on-failure redrive tests: aggregate type `order` on one FIFO topic, `orders.fifo`. */
export const ORDERS_FIFO_CONFIG = defineConfig({
  source: 'urn:dynamodb-outbox:test',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
});

/** The record Lambda writes for a failed batch of stream records; with its payload as an S3 destination keeps it. */
export function failedBatch(
  streamArn: string,
  shardId: string,
  records: readonly _Record[],
  options: { payload?: unknown; arrival?: string } = {},
): Omit<StreamOnFailureRecord, 'payload'> & { payload?: unknown } {
  const arrival = options.arrival ?? new Date().toISOString();
  return {
    version: '1.0',
    timestamp: arrival,
    requestContext: { condition: 'RetryAttemptsExhausted' },
    DDBStreamBatchInfo: {
      shardId,
      streamArn,
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival,
      approximateArrivalOfLastRecord: arrival,
      batchSize: records.length,
    },
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  };
}

/** The invocation event an S3 destination keeps as a failed batch's `payload`. */
export const batchPayload = (records: readonly _Record[]) => ({
  Records: records.map((r) => ({ eventName: r.eventName, dynamodb: r.dynamodb })),
});

/** A FIFO topic `orders.fifo`'s stand-in with a FIFO view queue of its own (each remembers dedup ids), and what reached the view, in order. */
export function fifoView(server: FauxqsServer, name: string): { topicArns: Record<string, string>; delivered(): OutboxEnvelope[] } {
  const topic = server.createTopic(`${name}.fifo`, { attributes: { FifoTopic: 'true' } });
  server.createQueue(`${name}-view.fifo`, { attributes: { FifoQueue: 'true' } });
  server.subscribe({ topic: `${name}.fifo`, queue: `${name}-view.fifo`, attributes: { RawMessageDelivery: 'true' } });
  return {
    topicArns: { 'orders.fifo': topic.topicArn },
    delivered: () => queueBodies(server, `${name}-view.fifo`).map((b) => parseEnvelope(b)),
  };
}

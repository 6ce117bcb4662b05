import { readFileSync } from 'node:fs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { interceptLocalhostDns } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { serializeConfig } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../../shared/relay/metrics.js';
import { RELAY_DLQ, type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';

const fixture = (name: string): DynamoDBStreamEvent =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as DynamoDBStreamEvent;

let stack: RelayTestStack;
let handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
let restoreDns: (() => void) | undefined;

beforeAll(async () => {
  stack = await startRelayStack(config);
  // The emulator's queue URLs use *.localhost hosts, which an SQS client without an explicit endpoint calls directly.
  restoreDns = interceptLocalhostDns();
  // The deployed handler reads everything from its environment at cold start; point it at the emulator.
  Object.assign(process.env, {
    [RELAY_ENV.config]: serializeConfig(config),
    [RELAY_ENV.topicArns]: JSON.stringify(stack.topicArns),
    [RELAY_ENV.deadLetterQueueUrl]: stack.deadLetterQueueUrl,
    [LAMBDA_FUNCTION_NAME_ENV]: 'outbox-relay',
    AWS_ENDPOINT_URL: stack.server.address,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  ({ handler } = await import('../../functions/relay/handler.js'));
});

afterAll(async () => {
  restoreDns?.();
  await stack?.stop();
});

describe('the deployed relay handler on AWS-documented stream events', () => {
  it('ignores the documented example records, which are not outbox slots, and reports no failure', async () => {
    await expect(handler(fixture('aws-dynamodb-stream-event.json'))).resolves.toEqual({ batchItemFailures: [] });
    await expect(handler(fixture('aws-ttl-removal-event.json'))).resolves.toEqual({ batchItemFailures: [] });
    expect(stack.bodies(subscriberQueue('orders.fifo'))).toEqual([]);
    expect(stack.bodies(subscriberQueue('payments'))).toEqual([]);
    expect(stack.bodies(RELAY_DLQ)).toEqual([]);
  });

  it('publishes an outbox slot record as CloudEvents with per-aggregate sequences, and dead-letters a malformed one', async () => {
    await expect(handler(fixture('outbox-slot-stream-event.json'))).resolves.toEqual({ batchItemFailures: [] });
    expect(stack.envelopes(subscriberQueue('orders.fifo'))).toEqual([
      {
        specversion: '1.0',
        id: '01942a3c-5a00-7000-8000-000000000004',
        source: 'urn:dynamodb-outbox:example-shop',
        type: 'order.paid',
        subject: 'o-1',
        time: '2025-01-01T00:00:00.000Z',
        datacontenttype: 'application/json',
        aggregatetype: 'order',
        aggregatesequence: 4,
        sequenceepoch: '2025-01-01T00:00:00.000Z',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        data: { amount: 42 },
      },
      expect.objectContaining({
        id: '01942a3c-5a00-7000-8000-000000000005',
        type: 'order.shipped',
        aggregatesequence: 5,
        data: { carrier: 'dhl' },
      }),
    ]);
    const letters = stack.bodies(RELAY_DLQ).map((body) => JSON.parse(body));
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      kind: 'outbox-relay-dead-letter',
      reason: 'MALFORMED_SLOT',
      detail: 'seq is not a positive whole number',
      record: { eventId: 'c81e728d9d4c2f636f067f89cc14862c', sequenceNumber: '4421584500000000017450439093' },
      rawImage: { pk: { S: 'OUTBOX#payment#p-1' } },
    });
  });
});

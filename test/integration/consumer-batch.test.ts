import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { ConsumerOptions, TransactionContext } from '../../shared/consumer/types.js';
import { anEnvelope, anSqsEvent, anSqsRecord, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { captureLogs } from '../helpers/logs.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-batch'));
});

afterAll(() => clients.destroy());

function consumerWith(name: string, handlers: ConsumerOptions['handlers'], extra: Partial<ConsumerOptions> = {}) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers,
    inbox: { document: clients.document, tableName },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    ...extra,
  });
  return { consumer, ...telemetry };
}

const noteWrite = (key: string, ctx: TransactionContext) =>
  ctx.write({ Put: { TableName: tableName, Item: { pk: `NOTE#${ctx.consumer}#${key}`, sk: 'NOTE' } } });

describe('FIFO batch semantics (Lambda handler)', () => {
  it('reports the failed message and the later messages of its group failed, unprocessed, and lets other groups go on', async () => {
    const handled: string[] = [];
    const { consumer } = consumerWith('fifo-batch', {
      'order.placed': {
        handle: (event, ctx) => {
          const key = `${event.subject}${event.aggregatesequence}`;
          if (key === 'A2') throw new Error('A2 cannot be handled yet');
          handled.push(key);
          noteWrite(key, ctx);
        },
      },
    });
    const record = (aggregateId: string, sequence: number) =>
      anSqsRecord(anEnvelope({ aggregateId, sequence }).body, `order#${aggregateId}`, `${aggregateId}${sequence}`);
    const event = anSqsEvent([record('A', 1), record('B', 1), record('A', 2), record('B', 2), record('A', 3), record('C', 1)]);

    const response = await consumer.handler(event);

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'A2' }, { itemIdentifier: 'A3' }]);
    expect(handled).toEqual(['A1', 'B1', 'B2', 'C1']);
  });

  it('processes every message of a standard batch even when one fails', async () => {
    const handled: string[] = [];
    const { consumer } = consumerWith(
      'standard-batch',
      {
        'order.placed': {
          handle: (event, ctx) => {
            if (event.subject === 'bad') throw new Error('boom');
            handled.push(event.subject);
            noteWrite(event.subject, ctx);
          },
        },
      },
      { concurrency: 3 },
    );
    const records = ['s1', 'bad', 's2', 's3'].map((id) => anSqsRecord(anEnvelope({ aggregateId: id }).body, undefined, `m-${id}`));

    const response = await consumer.handler(anSqsEvent(records));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }]);
    expect(handled.sort()).toEqual(['s1', 's2', 's3']);
  });
});

describe('inbox transaction limits', () => {
  it('fails an event whose handler adds more writes than one transaction takes, writing nothing', async () => {
    const { consumer } = consumerWith('greedy', {
      'order.placed': {
        handle: (event, ctx) => {
          for (let i = 0; i < 100; i++) noteWrite(`${event.id}-${i}`, ctx);
        },
      },
    });
    const event = anEnvelope({ aggregateId: 'greedy-1' });

    const result = await consumer.process([{ messageId: 'g-1', body: event.body }]);

    const outcome = result.outcomes[0];
    expect(outcome?.status).toBe('failed');
    expect(outcome?.status === 'failed' && outcome.error).toMatchObject({
      code: 'INVALID_INBOX_WRITE',
      message: expect.stringContaining('added 100 writes; allowed: at most 99'),
    });
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: { pk: `NOTE#greedy#${event.id}-0`, sk: 'NOTE' } }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('sequence tracking', () => {
  it('reports a gap and a late arrival as a log line and a metric', async () => {
    const { consumer, logs, counts } = consumerWith(
      'tracked',
      { 'order.placed': { handle: (event, ctx) => noteWrite(`${event.subject}-${event.aggregatesequence}`, ctx) } },
      { sequenceTracking: true },
    );
    const deliver = (sequence: number) =>
      consumer.process([{ messageId: `t-${sequence}`, body: anEnvelope({ aggregateId: 'trk', sequence }).body }]);

    await deliver(1);
    await deliver(2);
    expect(counts.get('SequenceGaps')).toBeUndefined();

    await deliver(4);
    const gap = logs.find((l) => l.message.startsWith('Sequence gap'));
    expect(gap?.attributes).toMatchObject({ aggregateId: 'trk', missing: 1, received: { sequence: 4 }, last: { sequence: 2 } });
    expect(counts.get('SequenceGaps')).toBe(1);

    await deliver(3);
    const late = logs.find((l) => l.message.startsWith('Out-of-order'));
    expect(late?.attributes).toMatchObject({ aggregateId: 'trk', received: { sequence: 3 }, last: { sequence: 4 } });
    expect(counts.get('SequenceOutOfOrder')).toBe(1);
  });

  it('catches up on a redelivered event whose position was never recorded, instead of reporting a false gap after it', async () => {
    const handlers: ConsumerOptions['handlers'] = {
      'order.placed': { handle: (event, ctx) => noteWrite(`${event.subject}-${event.aggregatesequence}`, ctx) },
    };
    const { consumer, counts } = consumerWith('tracked-crash', handlers, { sequenceTracking: true });
    // The same consumer without tracking: its commit of event 2 stands for a worker that crashed after the commit, before the tracking write.
    const { consumer: crashed } = consumerWith('tracked-crash', handlers);
    const envelopes = [1, 2, 3].map((sequence) => anEnvelope({ aggregateId: 'crash', sequence }));
    const deliver = (to: typeof consumer, sequence: number) =>
      to.process([{ messageId: `c-${sequence}`, body: envelopes[sequence - 1]!.body }]);

    await deliver(consumer, 1);
    await deliver(crashed, 2);
    const redelivered = await deliver(consumer, 2);
    await deliver(consumer, 3);
    const again = await deliver(consumer, 1);

    expect(redelivered.outcomes[0]?.status).toBe('duplicate');
    expect(again.outcomes[0]?.status).toBe('duplicate');
    expect(counts.get('SequenceGaps')).toBeUndefined();
    expect(counts.get('SequenceOutOfOrder')).toBeUndefined();
  });

  it('reports the gap a redelivered event shows, which its first delivery would have reported', async () => {
    const handlers: ConsumerOptions['handlers'] = {
      'order.placed': { handle: (event, ctx) => noteWrite(`${event.subject}-${event.aggregatesequence}`, ctx) },
    };
    const { consumer, counts, logs } = consumerWith('tracked-crash-gap', handlers, { sequenceTracking: true });
    const { consumer: crashed } = consumerWith('tracked-crash-gap', handlers);
    const deliver = (to: typeof consumer, sequence: number) =>
      to.process([
        { messageId: `g-${sequence}`, body: anEnvelope({ aggregateId: 'crash-gap', sequence, id: `crash-gap-${sequence}` }).body },
      ]);

    await deliver(consumer, 1);
    await deliver(crashed, 3);
    await deliver(consumer, 3);

    expect(counts.get('SequenceGaps')).toBe(1);
    expect(logs.find((l) => l.message.startsWith('Sequence gap'))?.attributes).toMatchObject({ missing: 1, received: { sequence: 3 } });
  });

  it('treats a new slot epoch starting at 1 as in order, and one starting later as a gap', async () => {
    const { consumer, counts } = consumerWith(
      'tracked-epochs',
      { 'order.placed': { handle: (event, ctx) => noteWrite(`${event.sequenceepoch}-${event.aggregatesequence}`, ctx) } },
      { sequenceTracking: true },
    );
    const deliver = (sequenceEpoch: string, sequence: number) =>
      consumer.process([{ messageId: 'e', body: anEnvelope({ aggregateId: 'ep', sequence, sequenceEpoch }).body }]);

    await deliver('2026-01-01T00:00:00.000Z', 7);
    await deliver('2026-02-01T00:00:00.000Z', 1);
    expect(counts.get('SequenceGaps')).toBeUndefined();
    await deliver('2026-03-01T00:00:00.000Z', 3);
    expect(counts.get('SequenceGaps')).toBe(1);
  });
});

/** The test table's DocumentClient, whose `send` throws `fault(command)` instead where that gives an error. */
function faultyDocument(fault: (command: unknown) => Error | undefined): DynamoDBDocumentClient {
  return {
    send: (command: unknown) => {
      const error = fault(command);
      return error === undefined ? clients.document.send(command as never) : Promise.reject(error);
    },
  } as unknown as DynamoDBDocumentClient;
}

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('failures around the handler', () => {
  it('fails only the message whose schema throws instead of reporting issues, saying so', async () => {
    const throwing: StandardSchemaV1<unknown, { total: number }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (data) => {
          if ((data as { total?: unknown }).total === undefined)
            throw new TypeError("Cannot read properties of undefined (reading 'toFixed')");
          return { value: data as { total: number } };
        },
      },
    };
    const handled: string[] = [];
    const { consumer } = consumerWith('schema-throws', {
      'order.placed': {
        schema: throwing,
        handle: (event, ctx) => {
          handled.push(event.subject);
          noteWrite(event.id, ctx);
        },
      },
    });
    const good = anEnvelope({ aggregateId: 'st-good', data: { total: 1 } });
    const bad = anEnvelope({ aggregateId: 'st-bad', data: {} });

    const response = await consumer.handler(
      anSqsEvent([anSqsRecord(good.body, undefined, 'm-good'), anSqsRecord(bad.body, undefined, 'm-bad')]),
    );
    const { outcomes } = await consumer.process([{ messageId: 'm-bad', body: bad.body }]);

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }]);
    expect(handled).toEqual(['st-good']);
    expect(outcomes[0]).toMatchObject({
      status: 'failed',
      eventId: bad.id,
      error: {
        message: expect.stringMatching(/schema of "order.placed" threw while validating the data of event .*: Cannot read properties/),
      },
    });
  });

  it('claim: a failed release does not hide the handler’s error', async () => {
    const { consumer, logs } = consumerWith(
      'release-fails',
      {
        'order.placed': {
          idempotency: 'claim',
          handle: () => {
            throw new Error('payment API 500');
          },
        },
      },
      { inbox: { document: faultyDocument((c) => (c instanceof DeleteCommand ? new Error('socket hang up') : undefined)), tableName } },
    );

    const { outcomes } = await consumer.process([{ messageId: 'r-1', body: anEnvelope({ aggregateId: 'rf-1' }).body }]);

    expect(outcomes[0]).toMatchObject({ status: 'failed', error: { message: 'payment API 500' } });
    expect(logs.find((l) => l.message.startsWith('Releasing the claim failed'))?.attributes).toMatchObject({
      error: { message: 'socket hang up' },
    });
  });

  it('claim: once the side effect has run, a failure to record it does not fail the message (which would run it again)', async () => {
    const sent: string[] = [];
    const { consumer, logs } = consumerWith(
      'complete-fails',
      { 'order.placed': { idempotency: 'claim', handle: (event) => void sent.push(event.id) } },
      { inbox: { document: faultyDocument((c) => (c instanceof UpdateCommand ? new Error('throttled') : undefined)), tableName } },
    );
    const event = anEnvelope({ aggregateId: 'cf-1' });

    const { outcomes, batchItemFailures } = await consumer.process([{ messageId: 'c-1', body: event.body }]);

    expect(outcomes[0]?.status).toBe('processed');
    expect(batchItemFailures).toEqual([]);
    expect(sent).toEqual([event.id]);
    expect(logs.find((l) => l.message.startsWith('The event was handled but recording it failed'))?.attributes).toMatchObject({
      eventId: event.id,
      error: { message: 'throttled' },
    });
  });

  it('claim: in Lambda, a claim lasts until the invocation’s timeout unless a claim timeout is set', async () => {
    const clock = Date.parse('2026-06-01T12:00:00.400Z');
    const expiries: Record<string, number> = {};
    const handlers: ConsumerOptions['handlers'] = {
      'order.placed': {
        idempotency: 'claim',
        handle: (event, ctx) => {
          expiries[event.subject] = ctx.claimExpiresAt;
        },
      },
    };
    const context = { getRemainingTimeInMillis: () => 40_000 };
    const untilTimeout = consumerWith('claim-lambda', handlers, { now: () => clock }).consumer;
    const withTimeout = consumerWith('claim-set', handlers, {
      now: () => clock,
      inbox: { document: clients.document, tableName, claimTimeoutSeconds: 600 },
    }).consumer;

    await untilTimeout.handler(anSqsEvent([anSqsRecord(anEnvelope({ aggregateId: 'lambda' }).body)]), context);
    await withTimeout.handler(anSqsEvent([anSqsRecord(anEnvelope({ aggregateId: 'set' }).body)]), context);
    await untilTimeout.process([{ messageId: 'p', body: anEnvelope({ aggregateId: 'polled' }).body }]);

    // 12:00:40.4 rounded up to the second, plus one.
    expect(expiries.lambda).toBe(Date.parse('2026-06-01T12:00:42Z'));
    // 12:00:00.4 rounded up to the second, plus the claim timeout (600 s set, 300 s by default).
    expect(expiries.set).toBe(Date.parse('2026-06-01T12:10:01Z'));
    expect(expiries.polled).toBe(Date.parse('2026-06-01T12:05:01Z'));
  });

  it("logs, by default, with the invocation's request id and function from Lambda's context", async () => {
    const consumer = createConsumer({
      name: 'logs-lambda-context',
      sources: [TEST_SOURCE],
      handlers: {
        'order.placed': {
          handle: () => {
            throw new Error('not yet');
          },
        },
      },
      inbox: { document: clients.document, tableName },
      metrics: recordingTelemetry().metrics,
    });
    const logs = captureLogs();
    try {
      await consumer.handler(anSqsEvent([anSqsRecord(anEnvelope({ aggregateId: 'logged' }).body)]), {
        awsRequestId: '3f5c7d2e-0000-4000-8000-000000000001',
        functionName: 'orders-consumer',
        invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:orders-consumer',
        getRemainingTimeInMillis: () => 30_000,
      });
    } finally {
      logs.stop();
    }

    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        message: 'Event handling failed; the message will be retried',
        service: 'logs-lambda-context',
        function_request_id: '3f5c7d2e-0000-4000-8000-000000000001',
        function_name: 'orders-consumer',
      }),
    );
  });

  it('transaction: a throttled inbox record or a conflicting write fails the message as a conflict naming the action', async () => {
    const outcomeWith = async (name: string, error: Error) => {
      const { consumer } = consumerWith(
        name,
        { 'order.placed': { handle: (event, ctx) => noteWrite(event.id, ctx) } },
        { inbox: { document: faultyDocument((c) => (c instanceof TransactWriteCommand ? error : undefined)), tableName } },
      );
      return (await consumer.process([{ messageId: 'x', body: anEnvelope({ aggregateId: name }).body }])).outcomes[0];
    };

    const throttled = await outcomeWith('inbox-throttled', cancelled('None', 'ThrottlingError'));
    const conflict = await outcomeWith('write-conflict', cancelled('TransactionConflict', 'None'));
    const unknown = await outcomeWith('no-reasons', cancelled());

    expect(throttled).toMatchObject({
      status: 'failed',
      error: {
        name: 'InboxConflictError',
        code: 'TRANSACTION_CONFLICT',
        message: expect.stringContaining('the inbox record Put: ThrottlingError'),
      },
    });
    expect(conflict).toMatchObject({
      status: 'failed',
      error: {
        code: 'TRANSACTION_CONFLICT',
        message: expect.stringMatching(/writes\[0\] \(Put\): TransactionConflict\); nothing was written, and the message will be retried$/),
      },
    });
    expect(unknown).toMatchObject({
      status: 'failed',
      error: { code: 'TRANSACTION_FAILED', message: expect.stringContaining('inbox record Put') },
    });
  });

  it('pollOnce counts as acknowledged only the messages SQS deleted', async () => {
    const { consumer } = consumerWith('poll-count', { 'order.placed': { handle: (event, ctx) => noteWrite(event.id, ctx) } });
    const messages = ['a', 'b', 'c'].map((id) => ({
      MessageId: id,
      ReceiptHandle: `rh-${id}`,
      Body: anEnvelope({ aggregateId: `pc-${id}` }).body,
    }));
    const sqs = {
      send: async (command: unknown) =>
        command instanceof ReceiveMessageCommand
          ? { Messages: messages }
          : { Successful: [{ Id: '0' }, { Id: '2' }], Failed: [{ Id: '1', Code: 'ReceiptHandleIsInvalid', SenderFault: true }] },
    } as unknown as SQSClient;

    const result = await pollOnce({
      sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/q',
      consumer,
      visibilityTimeoutSeconds: 30,
    });

    expect(result).toMatchObject({ received: 3, acknowledged: 2, failed: 0 });
  });
});

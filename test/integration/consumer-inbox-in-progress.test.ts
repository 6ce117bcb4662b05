import { DynamoDBClient, TransactionInProgressException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InboxTransactionInProgressError } from '../../shared/consumer/errors.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import type { ConsumerOptions } from '../../shared/consumer/types.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { appliedCount, countingConsumer } from '../helpers/counting-consumer.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-in-progress'));
});

afterAll(() => clients.destroy());

/**
 * A DocumentClient on DynamoDB Local whose first TransactWriteItems ends in
 * `TransactionInProgressException`, as when the SDK's retries of a request whose first attempt's
 * answer was lost (same ClientRequestToken) are all told that attempt is still running. With
 * `applied`, that attempt went through (the transaction is written); without, it did not.
 */
function inProgressOnce(applied: boolean): DynamoDBDocumentClient {
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  let answered = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand' || answered) return next(args);
      answered = true;
      if (applied) await next(args);
      throw new TransactionInProgressException({
        message: 'Transaction is ongoing for the idempotency token',
        $metadata: { httpStatusCode: 400, attempts: 3 },
      });
    },
    // Outside the SDK's retries, which take TransactionInProgressException for throttling: this is what is left once they are spent.
    { step: 'initialize', name: 'inProgressOnce' },
  );
  return DynamoDBDocumentClient.from(client);
}

/** A consumer whose handler adds 1 to a counter of the event's aggregate: a write applied twice counts 2. */
const counting = (name: string, document: DynamoDBDocumentClient, commit: ConsumerOptions['commit']) =>
  countingConsumer(name, document, tableName, { commit });

const handledCount = (name: string, aggregateId: string) => appliedCount(clients.document, tableName, name, aggregateId);

const inboxStatus = async (name: string, eventId: string) =>
  (
    await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey(name, { source: TEST_SOURCE, id: eventId }), ConsistentRead: true }),
    )
  ).Item?.status;

describe("TransactionInProgressException on an event's inbox transaction (commit: 'event')", () => {
  it.each([
    [true, 'duplicate'],
    [false, 'processed'],
  ] as const)(
    'fails the message, and its redelivery applies the event once (the attempt still running went through: %s)',
    async (applied, redelivered) => {
      const name = `in-progress-event-${applied}`;
      const event = anEnvelope({ aggregateId: name });
      const message = { messageId: 'm1', body: event.body };
      const first = counting(name, inProgressOnce(applied), 'event');

      const { batchItemFailures, outcomes } = await first.consumer.process([message]);

      // Failed, so SQS delivers it again: the consumer cannot tell yet whether the attempt committed.
      expect(batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
      // The consumer's typed error, as every other outcome carries, with DynamoDB's as its cause; so is what it logs.
      const error = (outcomes[0] as { error: Error }).error;
      expect(outcomes[0]).toMatchObject({ status: 'failed', eventId: event.id });
      expect(error).toBeInstanceOf(InboxTransactionInProgressError);
      expect(error).toMatchObject({
        code: 'TRANSACTION_IN_PROGRESS',
        eventId: event.id,
        cause: { name: 'TransactionInProgressException' },
      });
      expect(error.message).toBe(
        `An earlier attempt of the transaction of event ${event.id} (order.placed) was still running (TransactionInProgressException) when the retries were spent, and may yet commit; nothing more was sent, and the message will be retried: its redelivery finds the event done (a duplicate) if that attempt committed, and commits it otherwise`,
      );
      expect(first.logs.find((l) => l.message === 'Event handling failed; the message will be retried')?.attributes).toMatchObject({
        error,
      });
      expect(await handledCount(name, name)).toBe(applied ? 1 : undefined);

      // The redelivery: the inbox record, written with the handler's writes or not at all, decides.
      const again = counting(name, clients.document, 'event');
      expect((await again.consumer.process([message])).outcomes[0]).toMatchObject({ status: redelivered, eventId: event.id });
      expect(await handledCount(name, name)).toBe(1);
      expect(await inboxStatus(name, event.id)).toBe('COMPLETED');
    },
  );
});

describe("TransactionInProgressException on a group's transaction (commit: 'batch')", () => {
  it('commits each event on its own, conditional on its inbox record: what the running attempt wrote is a duplicate, never applied twice', async () => {
    const name = 'in-progress-batch';
    const events = [anEnvelope({ aggregateId: `${name}-a` }), anEnvelope({ aggregateId: `${name}-b` })];
    const { consumer, logs } = counting(name, inProgressOnce(true), 'batch');

    const { batchItemFailures, outcomes } = await consumer.process(events.map((e, i) => ({ messageId: `m${i}`, body: e.body })));

    expect(batchItemFailures).toEqual([]);
    expect(outcomes.map((o) => o.status)).toEqual(['duplicate', 'duplicate']);
    expect(await handledCount(name, `${name}-a`)).toBe(1);
    expect(await handledCount(name, `${name}-b`)).toBe(1);
    // Not "nothing of it was written": the attempt DynamoDB reported running may commit, and here did.
    const fallback = logs.find((l) => l.message.includes('group transaction'));
    expect(fallback?.message).toBe(
      "An earlier attempt of the batch's group transaction was still running (TransactionInProgressException) and may commit; each of its events commits on its own, conditional on its inbox record, so one that attempt wrote is a duplicate, never applied twice",
    );
  });
});

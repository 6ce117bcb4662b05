import { ProvisionedThroughputExceededException, RequestLimitExceeded, ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxConflictError } from '../../shared/consumer/errors.js';
import { Inbox } from '../../shared/consumer/inbox.js';

const event = { id: 'evt-1', source: 'urn:test', type: 'order.placed' };
const write = { Put: { TableName: 't', Item: { pk: 'ORDER#1', sk: 'VIEW' } } };

/** An inbox whose every request fails with `error`, as DynamoDB's answer after the SDK's own retries. */
const inboxFailingWith = (error: Error) =>
  new Inbox('billing', { document: { send: () => Promise.reject(error) } as unknown as DynamoDBDocumentClient, tableName: 't' });

const metadata = { $metadata: {} };

describe('inbox commit, failures a retry can get past', () => {
  it.each([
    [
      'RequestLimitExceeded',
      new RequestLimitExceeded({ message: 'Throughput exceeds the current throughput quota for your account', ...metadata }),
    ],
    ['ThrottlingException', new ThrottlingException({ message: 'Throughput exceeds the current capacity of your table', ...metadata })],
    [
      'ProvisionedThroughputExceededException',
      new ProvisionedThroughputExceededException({ message: 'The level of configured provisioned throughput was exceeded', ...metadata }),
    ],
  ])('fails with InboxConflictError naming %s when DynamoDB throttles the whole transaction', async (name, error) => {
    const failure = await inboxFailingWith(error)
      .commit(event, [write])
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(InboxConflictError);
    expect(failure).toMatchObject({ code: 'TRANSACTION_CONFLICT', eventId: 'evt-1', cause: error });
    expect((failure as Error).message).toContain(`the whole request: ${name}`);
  });
});

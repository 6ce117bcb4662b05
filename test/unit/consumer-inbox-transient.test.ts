import { ProvisionedThroughputExceededException, RequestLimitExceeded, ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxConflictError } from '../../shared/consumer/errors.js';
import { Inbox } from '../../shared/consumer/inbox.js';
import { THROTTLED_COMMIT_RETRY } from '../../shared/consumer/inbox-records.js';

const event = { id: 'evt-1', source: 'urn:test', type: 'order.placed' };
const write = { Put: { TableName: 't', Item: { pk: 'ORDER#1', sk: 'VIEW' } } };

/** An inbox whose every request fails with `error`, as DynamoDB's answer after the SDK's own retries; `sent` counts them. */
function inboxFailingWith(error: Error) {
  const sent = { count: 0 };
  const send = () => {
    sent.count++;
    return Promise.reject(error);
  };
  return Object.assign(new Inbox('billing', { document: { send } as unknown as DynamoDBDocumentClient, tableName: 't' }), { sent });
}

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
  ])('sends it again, then fails with InboxConflictError naming %s when DynamoDB throttles the whole transaction', async (name, error) => {
    const inbox = inboxFailingWith(error);
    const failure = await inbox.commit(event, [write]).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(InboxConflictError);
    expect(failure).toMatchObject({ code: 'TRANSACTION_CONFLICT', eventId: 'evt-1', cause: error });
    expect((failure as Error).message).toContain(`the whole request: ${name}`);
    expect((failure as Error).message).toContain(`throttled on each of ${THROTTLED_COMMIT_RETRY.maxAttempts} attempts`);
    expect(inbox.sent.count).toBe(THROTTLED_COMMIT_RETRY.maxAttempts);
  });
});

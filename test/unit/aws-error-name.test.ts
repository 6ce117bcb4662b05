import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { errorName } from '../../shared/aws/error-name.js';
import { Inbox } from '../../shared/consumer/inbox.js';

describe('errorName', () => {
  it.each([
    ['an SDK exception', new ThrottlingException({ message: 'slow down', $metadata: {} }), 'ThrottlingException'],
    [
      'an error of the client',
      Object.assign(new Error('no credentials'), { name: 'CredentialsProviderError' }),
      'CredentialsProviderError',
    ],
    ['null', null, 'Error'],
    ['a string', 'ECONNRESET', 'Error'],
    ['an object with an empty name', { name: '' }, 'Error'],
    ['an object with a name that is no string', { name: 42 }, 'Error'],
  ])('names %s', (_what, error, name) => {
    expect(errorName(error)).toBe(name);
  });
});

describe('inbox commit, a rejection that is no error object', () => {
  it('rethrows it as it came, instead of failing on reading its name', async () => {
    const inbox = new Inbox('billing', {
      document: { send: () => Promise.reject(null) } as unknown as DynamoDBDocumentClient,
      tableName: 't',
    });

    const failure = await inbox.commit({ id: 'evt-1', source: 'urn:test', type: 'order.placed' }, []).then(
      () => 'committed',
      (e: unknown) => e,
    );

    expect(failure).toBeNull();
  });
});

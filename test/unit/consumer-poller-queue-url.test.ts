import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { createPoller } from '../../shared/consumer/poller.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';

const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }));
const consumer = createConsumer({
  name: 'view',
  sources: ['urn:test:shop'],
  handlers: { 'order.placed': { handle: () => {} } },
  inbox: { document, tableName: 'inbox' },
});
const allowed =
  'allowed: an SQS queue URL, https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name> (http://<host>:<port>/<account>/<queue name> for a local endpoint)';

describe('pollOnce and createPoller refuse a queue URL that is not an SQS queue URL, before SQS is asked anything', () => {
  it.each([
    ['not a url', '"not a url", which is not an http:// or https:// URL with a host'],
    ['', '"", which is not an http:// or https:// URL with a host'],
    [
      'sqs.eu-west-1.amazonaws.com/123456789012/q',
      '"sqs.eu-west-1.amazonaws.com/123456789012/q", which is not an http:// or https:// URL with a host',
    ],
    [
      'ftp://sqs.eu-west-1.amazonaws.com/123456789012/q',
      '"ftp://sqs.eu-west-1.amazonaws.com/123456789012/q", which is not an http:// or https:// URL with a host',
    ],
    [42, '42, which is not a string'],
    // Taken before, as any http(s) URL with a host was: an endpoint, a path without the account, plain http to AWS.
    ['http://localhost:4566', '"http://localhost:4566", which names no queue: /<account>/<queue name> is missing after the host'],
    [
      'https://sqs.eu-west-1.amazonaws.com/orders-view',
      '"https://sqs.eu-west-1.amazonaws.com/orders-view", which has "/orders-view" after its host, where /<account>/<queue name> belongs',
    ],
    [
      'http://sqs.eu-west-1.amazonaws.com/123456789012/q',
      '"http://sqs.eu-west-1.amazonaws.com/123456789012/q", which sends to AWS over plain http, in clear',
    ],
  ])('%j', async (queueUrl, given) => {
    const send = vi.fn(async () => ({}));
    const sqs = { send } as unknown as SQSClient;
    const once = await pollOnce({ sqs, queueUrl, consumer } as never).catch((e: unknown) => e);
    expect(once).toBeInstanceOf(ConsumerOptionsError);
    expect(once).toMatchObject({
      field: 'pollOnce.queueUrl',
      message: `Invalid consumer option pollOnce.queueUrl: got ${given}; ${allowed}`,
    });
    expect(() => createPoller({ sqs, queueUrl, consumer } as never)).toThrow(
      new ConsumerOptionsError('createPoller.queueUrl', `got ${given}; ${allowed}`),
    );
    expect(send).not.toHaveBeenCalled();
  });

  it('takes the URL of a queue on AWS or on a local emulator', async () => {
    for (const queueUrl of ['https://sqs.eu-west-1.amazonaws.com/123456789012/q', 'http://127.0.0.1:4566/000000000000/q']) {
      const send = vi.fn(async () => ({}));
      const sqs = { send } as unknown as SQSClient;
      await expect(pollOnce({ sqs, queueUrl, consumer, visibilityTimeoutSeconds: 30, waitTimeSeconds: 0 })).resolves.toMatchObject({
        received: 0,
      });
      expect(send).toHaveBeenCalledOnce();
    }
  });
});

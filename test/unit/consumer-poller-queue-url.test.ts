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
  inbox: { document, tableName: 't' },
});
const allowed = 'allowed: an SQS queue URL (http or https), e.g. https://sqs.eu-west-1.amazonaws.com/123456789012/orders-view';

describe('pollOnce and createPoller refuse a queue URL that is not an http(s) URL, before SQS is asked anything', () => {
  it.each([
    ['not a url', '"not a url"'],
    ['', '""'],
    ['sqs.eu-west-1.amazonaws.com/123456789012/q', '"sqs.eu-west-1.amazonaws.com/123456789012/q"'],
    ['ftp://sqs.eu-west-1.amazonaws.com/123456789012/q', '"ftp://sqs.eu-west-1.amazonaws.com/123456789012/q"'],
    [42, '42'],
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

import { describe, expect, it } from 'vitest';
import { isFifoQueueUrl, sqsQueueUrlFault } from '../../shared/aws/sqs-queue-url.js';

describe('sqsQueueUrlFault: the one check of an SQS queue URL', () => {
  it.each([
    'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-view',
    'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/orders_view.fifo',
    'http://127.0.0.1:4566/000000000000/q',
    'http://sqs.us-east-1.localhost:4566/000000000000/q',
    `https://sqs.eu-west-1.amazonaws.com/123456789012/${'q'.repeat(80)}`,
    `https://sqs.eu-west-1.amazonaws.com/123456789012/${'q'.repeat(75)}.fifo`,
  ])('takes %s', (url) => {
    expect(sqsQueueUrlFault(url)).toBeUndefined();
  });

  it.each([
    [42, 'is not a string'],
    ['orders-view', 'is not an http:// or https:// URL with a host'],
    ['arn:aws:sqs:eu-west-1:123456789012:orders-view', 'is not an http:// or https:// URL with a host'],
    [' https://sqs.eu-west-1.amazonaws.com/123456789012/q', 'is not an http:// or https:// URL with a host'],
    ['https://user@sqs.eu-west-1.amazonaws.com/123456789012/q', 'holds a user name or password before its host'],
    ['http://sqs.eu-west-1.amazonaws.com/123456789012/q', 'sends to AWS over plain http, in clear'],
    ['http://localhost:99999/000000000000/q', 'has "localhost:99999" for its host and port, which is not a valid one'],
    ['http://localhost:4566', 'names no queue: /<account>/<queue name> is missing after the host'],
    ['http://localhost:4566/', 'names no queue: /<account>/<queue name> is missing after the host'],
    ['https://sqs.eu-west-1.amazonaws.com/q', 'has "/q" after its host, where /<account>/<queue name> belongs'],
    ['https://sqs.eu-west-1.amazonaws.com/12345/q', 'has the account "12345", not 12 digits'],
    [
      'https://sqs.eu-west-1.amazonaws.com/123456789012/a b',
      'has the queue name "a b" (3 characters), where SQS takes 1 to 80 letters, digits, "-" and "_", a FIFO queue\'s ending in ".fifo"',
    ],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/!', 'has the queue name "!" (1 character), where SQS takes'],
    [`https://sqs.eu-west-1.amazonaws.com/123456789012/${'q'.repeat(81)}`, 'has the queue name "qqqq'],
    [`https://sqs.eu-west-1.amazonaws.com/123456789012/${'q'.repeat(76)}.fifo`, '(81 characters)'],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/q/', 'has "/123456789012/q/" after its host'],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/q?x=1', 'has "/123456789012/q?x=1" after its host'],
  ])('refuses %j: it %s', (url, fault) => {
    expect(sqsQueueUrlFault(url)).toContain(fault);
  });
});

describe('isFifoQueueUrl', () => {
  it("is true of a FIFO queue's URL only, by the name SQS gives every FIFO queue", () => {
    expect(isFifoQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo')).toBe(true);
    expect(isFifoQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/orders-fifo')).toBe(false);
    expect(isFifoQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/orders')).toBe(false);
    expect(isFifoQueueUrl('not a url.fifo')).toBe(false);
  });
});

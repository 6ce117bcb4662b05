import { describe, expect, it } from 'vitest';
import { SQS_QUEUE_URL_ALLOWED } from '../../shared/aws/sqs-queue-url.js';
import { defineConfig } from '../../shared/config.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { summarizeDlq } from '../../shared/redrive/dlq-summary.js';
import { drainQueue } from '../../shared/redrive/drain-queue.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';

const DLQ = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq';
const SOURCE = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';
const ORDERS_ARN = { orders: 'arn:aws:sns:us-east-1:123456789012:orders' };
const CONFIG = defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

/** A client that counts what it is sent and answers nothing: a refusal must come before the first call. */
function countingClient() {
  const sent: unknown[] = [];
  const send = async (command: unknown) => {
    sent.push(command);
    return {};
  };
  return { sent, client: { send } as never };
}

/** URLs SQS cannot take, each with what the refusal says is wrong with it. */
const MALFORMED: readonly (readonly [string, string])[] = [
  ['https://sqs/q', 'has "/q" after its host'],
  ['http://localhost:4566', 'names no queue'],
  ['orders-dlq', 'is not an http:// or https:// URL with a host'],
  ['https://sqs.us-east-1.amazonaws.com/1/orders-dlq', 'has the account "1", not 12 digits'],
  ['http://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq', 'sends to AWS over plain http'],
];

/** Each library redrive entry point given `url` for one queue URL option, and the field it is refused on. */
const ENTRY_POINTS: readonly (readonly [string, string, (url: string, sqs: never) => Promise<unknown>])[] = [
  ['redriveQueueDlq', 'queueUrl', (url, sqs) => redriveQueueDlq({ sqs, queueUrl: url, targetQueueUrl: SOURCE })],
  ['redriveQueueDlq', 'targetQueueUrl', (url, sqs) => redriveQueueDlq({ sqs, queueUrl: DLQ, targetQueueUrl: url })],
  ['redriveRelayDlq', 'queueUrl', (url, sqs) => redriveRelayDlq({ sqs, sns: sqs, queueUrl: url, topicArns: ORDERS_ARN })],
  ['summarizeDlq', 'queueUrl', (url, sqs) => summarizeDlq({ sqs, queueUrl: url })],
  [
    'drainQueue',
    'queueUrl',
    (url, sqs) =>
      drainQueue({
        sqs,
        queueUrl: url,
        target: 'elsewhere',
        plan: () => ({ status: 'leave' }),
        republish: async () => ({ succeeded: [], failed: [] }),
      }),
  ],
  [
    'redriveOnFailure',
    'source.queueUrl',
    (url, sqs) => redriveOnFailure({ source: { sqs, queueUrl: url }, sns: sqs, streams: sqs, config: CONFIG, topicArns: ORDERS_ARN }),
  ],
];

describe('the library redrives check their queue URLs by the one rule, before any SQS call', () => {
  for (const [name, field, call] of ENTRY_POINTS) {
    it.each(MALFORMED)(`${name} refuses ${field} %j: it %s`, async (url, fault) => {
      const { sent, client } = countingClient();
      const error = await call(url, client).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect(error).toMatchObject({ field, code: 'INVALID_REDRIVE_OPTIONS' });
      const detail = (error as RedriveOptionsError).detail;
      expect(detail).toContain(`got ${JSON.stringify(url)}, which `);
      expect(detail).toContain(fault);
      expect(detail).toContain(`allowed: ${SQS_QUEUE_URL_ALLOWED}`);
      expect(sent).toEqual([]);
    });
  }

  it('refuses a URL that is not a string, as what was given', async () => {
    const { sent, client } = countingClient();
    const error = await summarizeDlq({ sqs: client, queueUrl: 42 as never }).catch((e: unknown) => e);
    expect(error).toMatchObject({ field: 'queueUrl', detail: expect.stringContaining('got 42, which is not a string') });
    expect(sent).toEqual([]);
  });

  it('words the refusal as the command line does for --queue-url', async () => {
    const url = 'http://localhost:4566';
    const library = await summarizeDlq({ sqs: countingClient().client, queueUrl: url }).catch((e: unknown) => e);
    let cli: unknown;
    try {
      parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', url, '--to', SOURCE], {});
    } catch (error) {
      cli = error;
    }
    expect(cli).toBeInstanceOf(RedriveOptionsError);
    expect((cli as RedriveOptionsError).field).toBe('--queue-url');
    expect((cli as RedriveOptionsError).detail).toBe((library as RedriveOptionsError).detail);
  });

  it('takes real-shaped URLs, on AWS and on a local endpoint, and tells a FIFO queue by its name', async () => {
    const { client } = countingClient();
    // A FIFO target from a standard DLQ is refused for the kind, so both URLs were read as queues.
    const error = await redriveQueueDlq({
      sqs: client,
      queueUrl: 'http://localhost:4566/000000000000/orders-dlq',
      targetQueueUrl: 'http://localhost:4566/000000000000/orders.fifo',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ field: 'targetQueueUrl', detail: expect.stringContaining('is a FIFO queue and the DLQ') });
  });
});

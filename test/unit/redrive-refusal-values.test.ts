import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';
const FIFO = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo';
const ARNS = '{"orders":"arn:aws:sns:eu-west-1:123456789012:orders"}';

/** A client that records what it is sent: a refusal must come before the first call. */
function recorder(): { client: never; sent: unknown[] } {
  const sent: unknown[] = [];
  return { client: { send: async (command: unknown) => sent.push(command) } as never, sent };
}

/** What `run` threw. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('redrive refusals say what was given, as showValue shows it, and what is allowed', () => {
  it('redriveOnFailure: a source that is neither S3 nor SQS, or none, is refused with what it was', async () => {
    const { client, sent } = recorder();
    const run = (source: unknown) =>
      redriveOnFailure({
        source: source as never,
        sns: client,
        streams: client,
        config: defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } }),
        topicArns: { orders: 'arn:aws:sns:eu-west-1:123456789012:orders' },
      }).catch((e: unknown) => e);
    const allowed = 'allowed: { bucket, s3, prefix? } (an S3 destination) or { queueUrl, sqs } (an SQS destination)';
    for (const [source, given] of [
      [undefined, 'got undefined'],
      [{ prefix: 'aws/lambda/' }, 'got an object with neither bucket nor queueUrl (its keys: ["prefix"])'],
      ['relay-failures', 'got "relay-failures"'],
    ] as const) {
      const error = await run(source);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect(error).toMatchObject({ field: 'source', detail: `${given}; ${allowed}` });
    }
    expect(sent).toEqual([]);
  });

  it('redriveOnFailure: a deadLetterQueue that is no { queueUrl, sqs } is refused with what it was, before anything is read', async () => {
    const { client, sent } = recorder();
    const run = (deadLetterQueue: unknown) =>
      redriveOnFailure({
        source: { s3: client, bucket: 'relay-failures' },
        sns: client,
        streams: client,
        config: defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } }),
        topicArns: { orders: 'arn:aws:sns:eu-west-1:123456789012:orders' },
        deadLetterQueue: deadLetterQueue as never,
      }).catch((e: unknown) => e);
    const allowed = "allowed: { queueUrl, sqs }: the relay DLQ's URL and an SQSClient (or anything that sends SendMessage like one)";
    for (const [deadLetterQueue, field, given] of [
      [null, 'deadLetterQueue', 'got null'],
      [{ queueUrl: DLQ }, 'deadLetterQueue.sqs', 'got undefined'],
      [{ queueUrl: DLQ, sqs: {} }, 'deadLetterQueue.sqs', 'got an object without a send method'],
    ] as const) {
      const error = await run(deadLetterQueue);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect(error).toMatchObject({ field, detail: `${given}; ${allowed}` });
    }
    expect(sent).toEqual([]);
  });

  it('redriveQueueDlq: a target that is the DLQ itself, or a FIFO queue for a standard DLQ, shows both URLs', async () => {
    const { client, sent } = recorder();
    const itself = await redriveQueueDlq({ sqs: client, queueUrl: DLQ, targetQueueUrl: DLQ }).catch((e: unknown) => e);
    expect(itself).toMatchObject({
      field: 'targetQueueUrl',
      detail: `is the DLQ itself (got ${JSON.stringify(DLQ)}); allowed: the source queue the DLQ serves`,
    });
    const fifo = await redriveQueueDlq({ sqs: client, queueUrl: DLQ, targetQueueUrl: FIFO }).catch((e: unknown) => e);
    expect(fifo).toMatchObject({
      field: 'targetQueueUrl',
      detail: `got ${JSON.stringify(FIFO)}, which is a FIFO queue and the DLQ ${JSON.stringify(DLQ)} a standard one, whose messages carry no message group; allowed: a standard queue, or a FIFO queue from a FIFO DLQ`,
    });
    expect(sent).toEqual([]);
  });

  it('the command line: --topic-arns shows the text given, and says when it came from OUTBOX_TOPIC_ARNS', () => {
    const refusal = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      thrown(() => parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', DLQ, ...args], env)) as RedriveOptionsError;
    expect(refusal(['--topic-arns', '[1]']).detail).toBe('got "[1]"; allowed: an object of topic name → topic ARN strings');
    expect(refusal(['--topic-arns', '{}']).detail).toBe('got "{}"; allowed: at least one topic name → topic ARN');
    expect(refusal([], { OUTBOX_TOPIC_ARNS: '{}' })).toMatchObject({
      field: '--topic-arns',
      detail: 'got "{}" (from OUTBOX_TOPIC_ARNS); allowed: at least one topic name → topic ARN',
    });
    expect(refusal([], { OUTBOX_TOPIC_ARNS: '{oops' }).detail).toBe(
      'got "{oops" (from OUTBOX_TOPIC_ARNS), which is not JSON; allowed: {"topic name":"topic ARN"}',
    );
    expect(refusal([], { OUTBOX_TOPIC_ARNS: '{"orders":"nope"}' }).detail).toBe(
      'topic "orders" has "nope" (from OUTBOX_TOPIC_ARNS); allowed: an SNS topic ARN (arn:<partition>:sns:<region>:<12-digit account>:<topic name>), e.g. arn:aws:sns:eu-west-1:123456789012:orders',
    );
  });

  it('the command line: --prefix without --bucket shows the prefix given and what it needs', () => {
    const error = thrown(() =>
      parseRedriveArgs(['redrive', 'on-failure', '--queue-url', DLQ, '--prefix', 'aws/lambda/', '--topic-arns', ARNS], {}),
    );
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error).toMatchObject({
      field: '--prefix',
      detail: 'got "aws/lambda/" without --bucket; allowed: --prefix only with --bucket (the key prefix of an S3 destination)',
    });
  });
});

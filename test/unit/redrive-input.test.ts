import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { S3Client } from '@aws-sdk/client-s3';
import { QueueDoesNotExist, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { RateLimiter } from '../../shared/rate-limit.js';
import { awsErrorHint } from '../../shared/redrive/aws-error-hint.js';
import { parseRedriveArgs, REDRIVE_USAGE } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { formatSummary } from '../../shared/redrive/summary.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dlq';
const SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing';
const ARNS = '{"payments":"arn:aws:sns:eu-west-1:123456789012:payments"}';

describe('parseRedriveArgs refuses input that would fail only once the run began', () => {
  const refused = (args: string[]) => {
    try {
      parseRedriveArgs(['redrive', ...args], {});
    } catch (error) {
      expect(error).toBeInstanceOf(RedriveOptionsError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(args)}`);
  };

  it('names the flag, what was given and what is allowed', () => {
    expect(refused(['relay-dlq', '--queue-url', 'not-a-url', '--topic-arns', ARNS])).toBe(
      'Invalid redrive option --queue-url: got "not-a-url", which is not an http:// or https:// URL with a host; allowed: an SQS queue URL, https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name> (http://<host>:<port>/<account>/<queue name> for a local endpoint)',
    );
    expect(refused(['relay-dlq', '--queue-url', DLQ, '--topic-arns', '{"payments":"nope"}'])).toBe(
      'Invalid redrive option --topic-arns: topic "payments" has "nope"; allowed: an SNS topic ARN (arn:<partition>:sns:<region>:<12-digit account>:<topic name>), e.g. arn:aws:sns:eu-west-1:123456789012:payments',
    );
    expect(refused(['on-failure', '--queue-url', '', '--topic-arns', ARNS])).toMatch(
      /--queue-url: got "", which is not an http:\/\/ or https:\/\/ URL with a host; allowed: an SQS queue URL/,
    );
    // An endpoint was taken for a queue before: any http(s) URL with a host was.
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', 'http://localhost:4566'])).toMatch(
      /--to: got "http:\/\/localhost:4566", which names no queue: \/<account>\/<queue name> is missing after the host; allowed: an SQS queue URL/,
    );
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', 'ftp://x/q'])).toMatch(
      /--to: got "ftp:\/\/x\/q", which is not an http:\/\/ or https:\/\/ URL with a host; allowed: an SQS queue URL/,
    );
    expect(refused(['on-failure', '--bucket', '', '--topic-arns', ARNS])).toMatch(
      /--bucket: got "", which has 0 characters, not 3 to 63; allowed: an S3 bucket name: 3–63 lower-case letters/,
    );
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--endpoint', 'localhost:4566'])).toMatch(
      /--endpoint: got "localhost:4566"; allowed: an http:\/\/ or https:\/\/ URL with a host/,
    );
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--rate', '0.001'])).toMatch(
      /--rate: got "0.001"; allowed: at least 1 event per second/,
    );
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--rate', ''])).toMatch(
      /--rate: got ""; allowed: at least 1 event per second/,
    );
    expect(refused(['relay-dlq', '--queue-url', DLQ, '--topic-arns', '{}'])).toMatch(/--topic-arns: got "\{\}"; allowed: at least one/);
  });

  it('refuses numbers in other notations than decimal digits, which Number() alone would take', () => {
    for (const max of ['0x10', '1e2', '0o7', ' 5', '9007199254740993']) {
      expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--max', max])).toBe(
        `Invalid redrive option --max: got ${JSON.stringify(max)}; allowed: a positive whole number in decimal digits`,
      );
    }
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--rate', '0b101'])).toBe(
      'Invalid redrive option --rate: got "0b101"; allowed: at least 1 event per second (slower, one batch would hold its messages for hours), in decimal digits, e.g. 2.5',
    );
    expect(
      parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--rate', '2.5', '--max', '100'], {}),
    ).toMatchObject({
      kind: 'queue-dlq',
    });
  });

  it('gives a negative number its flag’s own message, and a flag followed by another flag one line saying so', () => {
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--max', '-1'])).toBe(
      'Invalid redrive option --max: got "-1"; allowed: a positive whole number in decimal digits',
    );
    expect(refused(['queue-dlq', '--queue-url', '--dry-run', '--to', SOURCE])).toBe(
      'Invalid redrive option --queue-url: followed by "--dry-run", not by its value; allowed: --queue-url URL (a value starting with "-" as --queue-url=--dry-run)',
    );
    expect(parseRedriveArgs(['-h'], {})).toEqual({ kind: 'help' });
  });

  it('refuses a flag given twice instead of running against its last value', () => {
    expect(refused(['relay-dlq', '--queue-url', DLQ, '--queue-url', SOURCE, '--topic-arns', ARNS])).toBe(
      `Invalid redrive option --queue-url: given twice (${JSON.stringify(DLQ)}, then ${JSON.stringify(SOURCE)}); allowed: each option once`,
    );
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--to', `${SOURCE}-2`])).toMatch(
      /^Invalid redrive option --to: given twice/,
    );
    expect(refused(['queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--dry-run', '--dry-run'])).toMatch(
      /^Invalid redrive option --dry-run: given twice; allowed: each option once$/,
    );
  });

  it('accepts what is valid', () => {
    expect(
      parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--endpoint', 'http://localhost:4566', '--rate', '1']),
    ).toMatchObject({ endpoint: 'http://localhost:4566', ratePerSecond: 1 });
    expect(parseRedriveArgs(['redrive', 'on-failure', '--bucket', 'relay-failures.eu', '--topic-arns', ARNS])).toMatchObject({
      source: { bucket: 'relay-failures.eu' },
    });
  });

  it('says in --help that the rate counts events, as the docs and the code do', () => {
    expect(REDRIVE_USAGE).toContain('--rate N           republish N events per second on average');
    expect(REDRIVE_USAGE).not.toContain('messages per second');
  });
});

describe('redriveOnFailure options', () => {
  it('refuses a topic ARN that is not one before reading anything, as every redrive does', async () => {
    const reads: unknown[] = [];
    const s3 = { send: async (command: unknown) => reads.push(command) } as unknown as S3Client;
    const run = (topicArns: Record<string, string>) =>
      redriveOnFailure({
        source: { s3, bucket: 'relay-failures' },
        sns: { send: async () => ({ $metadata: {} }) },
        streams: {} as DynamoDBStreamsClient,
        config: defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } }),
        topicArns,
      });
    await expect(run({ orders: 'orders' })).rejects.toMatchObject({
      name: 'RedriveOptionsError',
      message:
        'Invalid redrive option topicArns.orders: got "orders"; allowed: an SNS topic ARN (arn:<partition>:sns:<region>:<12-digit account>:<topic name>)',
    });
    await expect(run({})).rejects.toThrow(/topicArns: got \{\}; allowed: an object of topic name → topic ARN/);
    expect(reads).toEqual([]);
  });

  it('refuses topic ARNs without a topic the config routes to, or of the other kind, before reading anything, DLQ or not', async () => {
    const reads: unknown[] = [];
    const recorder = { send: async (command: unknown) => reads.push(command) };
    const config = defineConfig({
      source: 'urn:test',
      topics: [{ name: 'orders' }, { name: 'invoices' }, { name: 'refunds.fifo', fifo: true }],
      routes: { order: 'orders', invoice: 'invoices', credit: 'invoices', refund: 'refunds.fifo' },
    });
    const arn = (name: string) => `arn:aws:sns:eu-west-1:123456789012:${name}`;
    const run = (topicArns: Record<string, string>, source: 's3' | 'sqs') =>
      redriveOnFailure({
        source:
          source === 's3'
            ? { s3: recorder as unknown as S3Client, bucket: 'relay-failures' }
            : { sqs: recorder as unknown as SQSClient, queueUrl: SOURCE },
        sns: { send: async () => ({ $metadata: {} }) },
        streams: recorder as unknown as DynamoDBStreamsClient,
        config,
        topicArns,
        deadLetterQueue: { queueUrl: DLQ, sqs: recorder as unknown as SQSClient },
      });
    for (const source of ['s3', 'sqs'] as const) {
      await expect(run({ orders: arn('orders') }, source)).rejects.toMatchObject({
        name: 'RedriveOptionsError',
        field: 'topicArns',
        message:
          'Invalid redrive option topicArns: no ARN for topic "invoices" (route of aggregate type "invoice", "credit"), topic "refunds.fifo" (route of aggregate type "refund"); got ARNs for "orders"; allowed: an ARN for every topic the config routes to ("orders", "invoices", "refunds.fifo"), as the relay has them in OUTBOX_TOPIC_ARNS',
      });
      await expect(run({ orders: arn('orders'), invoices: arn('invoices'), 'refunds.fifo': arn('refunds') }, source)).rejects.toMatchObject(
        {
          field: 'topicArns.refunds.fifo',
          message: expect.stringContaining(
            'allowed: the ARN of a FIFO topic (its name ends in ".fifo"), as the config says the topic is FIFO',
          ),
        },
      );
    }
    expect(reads).toEqual([]);
  });
});

describe('RateLimiter', () => {
  it('refuses a rate under one event per second, whose batch would outwait its messages’ visibility', () => {
    expect(() => new RateLimiter(0.5)).toThrow(/got 0.5; allowed: at least 1 event per second/);
  });

  it('ends a wait at once when the signal aborts, and says the units must not go', async () => {
    const limiter = new RateLimiter(1);
    expect(await limiter.take(1000)).toBe(true);
    const controller = new AbortController();
    const waiting = limiter.take(1, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });
});

describe('formatSummary of a partial run', () => {
  it('says the run was interrupted, keeps a dry run’s wording, and prints every note', () => {
    const text = formatSummary({
      status: 'interrupted',
      dryRun: true,
      source: 'dlq.fifo',
      target: 'q.fifo',
      before: 25,
      after: undefined,
      processed: 1,
      moved: 1,
      republished: 1,
      failed: [],
      skipped: [],
      notes: ['FIFO queue: only the first messages of each message group were seen'],
    });
    expect(text).toContain('Redrive interrupted — the counts are partial; dry run: nothing was republished or deleted');
    expect(text).toMatch(/status:\s+interrupted/);
    expect(text).toMatch(/would move\s+1 \(1 event\)/);
    expect(text).toMatch(/after:\s+unknown/);
    expect(text).toContain('note: FIFO queue: only the first messages of each message group were seen');
  });
});

describe('awsErrorHint', () => {
  const queueDlq = parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--region', 'eu-west-1']);
  const command = queueDlq as Exclude<typeof queueDlq, { kind: 'help' }>;

  it('names the queues given when one does not exist, and where they are looked for', () => {
    const error = new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} });
    expect(awsErrorHint(error, command)).toBe(
      `a queue given does not exist (--queue-url ${DLQ}, --to ${SOURCE}); allowed: URLs of existing queues, in the region the tool uses (--region, or AWS_REGION)`,
    );
  });

  it('says how to give a region or credentials when the SDK finds none', () => {
    expect(awsErrorHint(new Error('Region is missing'), command)).toBe(
      'no AWS region is set; allowed: --region NAME, or AWS_REGION in the environment',
    );
    const noCredentials = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    expect(awsErrorHint(noCredentials, command)).toMatch(/^no AWS credentials were found; allowed: AWS_PROFILE/);
  });

  it('adds nothing to other errors, whose own message says enough', () => {
    expect(awsErrorHint(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }), command)).toBeUndefined();
  });

  it('adds nothing to a rejection that is no error at all, instead of failing on it', () => {
    expect(awsErrorHint(null, command)).toBeUndefined();
    expect(awsErrorHint('socket hang up', command)).toBeUndefined();
  });
});

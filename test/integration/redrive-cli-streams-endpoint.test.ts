import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { defineConfig, serializeConfig } from '../../shared/config.js';
import { parseEnvelope } from '../../shared/envelope.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { runCli } from '../helpers/cli.js';
import { failedBatch } from '../helpers/failed-batch.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { streamRecords, writeSlot } from '../helpers/slot-stream.js';

// The local stack's split: SNS and SQS on the emulator, the table and its stream on DynamoDB Local.
const { server, clients } = await emulatorForFile();
const dynamoDb = inject('dynamodbEndpoint');
const config = defineConfig({ source: 'urn:dynamodb-outbox:test', topics: [{ name: 'payments' }], routes: { payment: 'payments' } });
let topicArns: string;
let eventIds: string[];
let failure: ReturnType<typeof failedBatch>;

beforeAll(async () => {
  const { tableName, streamArn } = await freshTable(clients, 'cli-streams');
  topicArns = JSON.stringify({ payments: server.createTopic('payments').topicArn });
  eventIds = (await writeSlot(clients, tableName, { type: 'payment', id: 'P' }, ['payment.captured', 'payment.settled'])).map((e) => e.id);
  const { shardId, records } = await streamRecords(clients, streamArn);
  // What the relay's SQS on-failure destination holds: coordinates only, so the record is re-read from the stream.
  failure = failedBatch(streamArn, shardId, records.slice(0, 1));
});

/** A fresh on-failure queue holding the record, and a subscriber queue of the topic. */
async function onFailureQueue(name: string) {
  const { queueUrl } = server.createQueue(`on-failure-${name}`);
  server.createQueue(`payments-view-${name}`);
  server.subscribe({ topic: 'payments', queue: `payments-view-${name}`, attributes: { RawMessageDelivery: 'true' } });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failure) }));
  return { queueUrl, delivered: () => queueBodies(server, `payments-view-${name}`).map((body) => parseEnvelope(body).id) };
}

const redrive = (queueUrl: string, extra: readonly string[]) =>
  runCli(['redrive', 'on-failure', '--queue-url', queueUrl, '--topic-arns', topicArns, '--endpoint', server.address, ...extra], {
    OUTBOX_CONFIG: serializeConfig(config),
  });

describe('redrive on-failure against the local stack', () => {
  it('re-reads the record from DynamoDB Local given --streams-endpoint, and republishes its events', async () => {
    const { queueUrl, delivered } = await onFailureQueue('split');

    const result = await redrive(queueUrl, ['--streams-endpoint', dynamoDb]);

    expect(result.stderr).not.toContain('failed');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Redrive completed\n/);
    expect(result.stdout).toMatch(/moved\s+1 \(2 events\)/);
    expect(delivered()).toEqual(eventIds);
    expect(queueDepth(server, 'on-failure-split')).toBe(0);
  }, 120_000);

  it('keeps the record when the stream is read at --endpoint, the emulator, which has no stream', async () => {
    const { queueUrl, delivered } = await onFailureQueue('one-endpoint');

    const result = await redrive(queueUrl, []);

    // DynamoDB Streams' calls went to the emulator, which does not know them: skipped, exit status 3.
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^Redrive completed — 1 skipped, kept in the source\n/);
    expect(result.stdout).toContain('could not list the shards of arn:aws:dynamodb:');
    expect(delivered()).toEqual([]);
    expect(queueDepth(server, 'on-failure-one-endpoint')).toBe(1);
  }, 120_000);
});

describe('--streams-endpoint', () => {
  const base = [
    'redrive',
    'on-failure',
    '--queue-url',
    'http://127.0.0.1:4566/000000000000/q',
    '--topic-arns',
    '{"payments":"arn:aws:sns:us-east-1:000000000000:payments"}',
  ];
  const refusal = (args: readonly string[]): string => {
    try {
      parseRedriveArgs(args, {});
    } catch (error) {
      if (error instanceof RedriveOptionsError) return error.message;
      throw error;
    }
    throw new Error('not refused');
  };

  it('is taken for on-failure as given, apart from --endpoint', () => {
    expect(
      parseRedriveArgs([...base, '--endpoint', 'http://127.0.0.1:4566', '--streams-endpoint', 'http://127.0.0.1:8000'], {}),
    ).toMatchObject({
      endpoint: 'http://127.0.0.1:4566',
      streamsEndpoint: 'http://127.0.0.1:8000',
    });
  });

  it('is refused when it is no http(s) URL, or for a kind that reads no stream', () => {
    expect(refusal([...base, '--streams-endpoint', 'localhost:8000'])).toBe(
      'Invalid redrive option --streams-endpoint: got "localhost:8000"; allowed: an http:// or https:// URL with a host, e.g. http://localhost:8000',
    );
    expect(
      refusal([
        'redrive',
        'queue-dlq',
        '--queue-url',
        'http://127.0.0.1:4566/000000000000/d',
        '--to',
        'http://127.0.0.1:4566/000000000000/q',
        '--streams-endpoint',
        'http://127.0.0.1:8000',
      ]),
    ).toMatch(/^Invalid redrive option --streams-endpoint: does not apply to queue-dlq; allowed: --queue-url, --to$/);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReplayArgs } from '../../shared/archive/replay-cli.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { sqsQueueUrlRegion } from '../../shared/aws/sqs-queue-region.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { redriveRegion, summarizeRegion } from '../../shared/redrive/cli-region.js';
import { parseDlqArgs } from '../../shared/redrive/dlq-cli.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';

const EU = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';
const EU_SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const US = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';
const LOCAL = 'http://localhost:4566/000000000000/orders-dlq';
const ARNS = { orders: 'arn:aws:sns:eu-west-1:123456789012:orders' };

/** An environment with no Region anywhere: no AWS_REGION, and profile files that do not exist. */
const dir = mkdtempSync(join(tmpdir(), 'cli-queue-url-region-'));
const NO_REGION: NodeJS.ProcessEnv = {
  AWS_CONFIG_FILE: join(dir, 'no-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
  OUTBOX_TOPIC_ARNS: JSON.stringify(ARNS),
};

/** The error `run` throws (a test fails when it throws none). */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was thrown');
}

describe('the Region an SQS queue URL names', () => {
  it.each([
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/q', 'eu-west-1'],
    ['https://SQS.AP-SOUTHEAST-2.AMAZONAWS.COM/123456789012/q', 'ap-southeast-2'],
    ['https://sqs.eu-west-1.amazonaws.com:443/123456789012/q', 'eu-west-1'],
    ['https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q', 'cn-north-1'],
    ['https://sqs-fips.us-gov-west-1.amazonaws.com/123456789012/q', 'us-gov-west-1'],
    ['https://sqs-fips.us-east-2.amazonaws.com/123456789012/q', 'us-east-2'],
    ['https://sqs.eu-central-2.api.aws/123456789012/q', 'eu-central-2'],
    ['https://sqs-fips.us-west-2.api.aws/123456789012/q', 'us-west-2'],
    ['https://vpce-0a1b2c3d-4e5f6a7b.sqs.eu-west-1.vpce.amazonaws.com/123456789012/q', 'eu-west-1'],
    ['https://eu-west-1.queue.amazonaws.com/123456789012/q', 'eu-west-1'],
    ['https://queue.amazonaws.com/123456789012/q', 'us-east-1'],
  ])('%s is in %s', (url, region) => {
    expect(sqsQueueUrlRegion(url)).toBe(region);
  });

  it.each([
    LOCAL,
    'http://sqs.us-east-1.localhost:4566/000000000000/q',
    'https://sqs.amazonaws.com/123456789012/q',
    'https://sns.eu-west-1.amazonaws.com/123456789012/q',
    'https://sqs.eu-west-1.amazonaws.com.evil.example/123456789012/q',
    'not a url',
  ])('%s names none', (url) => {
    expect(sqsQueueUrlRegion(url)).toBeUndefined();
  });
});

describe('queue URLs of different Regions, or --region other than theirs, refused when parsed', () => {
  it('redrive queue-dlq: --to in another Region than --queue-url', () => {
    const error = thrown(() => parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', EU, '--to', US], NO_REGION));
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error.message).toBe(
      `Invalid redrive option --to: got "${US}", a queue in us-east-1, where --queue-url "${EU}" is in eu-west-1; allowed: queues of one Region, as every call of the run is signed for one (or --endpoint for a local emulator)`,
    );
  });

  it('redrive relay-dlq and on-failure: --region other than the queue URL', () => {
    const relay = thrown(() => parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', EU, '--region', 'us-east-1'], NO_REGION));
    expect(relay.message).toBe(
      `Invalid redrive option --region: got "us-east-1", where --queue-url "${EU}" is a queue in eu-west-1; allowed: eu-west-1, or no --region (the queue URL's Region is taken)`,
    );
    const onFailure = thrown(() =>
      parseRedriveArgs(['redrive', 'on-failure', '--queue-url', EU, '--relay-dlq-url', US, '--config', 'outbox.json'], NO_REGION),
    );
    expect(onFailure.message).toMatch(/^Invalid redrive option --relay-dlq-url: got "[^"]+", a queue in us-east-1, where --queue-url /);
  });

  it('redrive on-failure: the relay DLQ from OUTBOX_RELAY_DLQ_URL is named by the variable', () => {
    const env = { ...NO_REGION, OUTBOX_RELAY_DLQ_URL: US };
    const error = thrown(() => parseRedriveArgs(['redrive', 'on-failure', '--bucket', 'on-failure-records', '--region', 'eu-west-1'], env));
    expect(error.message).toBe(
      `Invalid redrive option --region: got "eu-west-1", where --relay-dlq-url (from OUTBOX_RELAY_DLQ_URL) "${US}" is a queue in us-east-1; allowed: us-east-1, or no --region (the queue URL's Region is taken)`,
    );
  });

  it('dlq summarize and replay: --region other than the queue URL, refused as their own options', () => {
    const dlq = thrown(() => parseDlqArgs(['dlq', 'summarize', '--queue-url', EU, '--region', 'us-east-1']));
    expect(dlq).toBeInstanceOf(RedriveOptionsError);
    expect(dlq.message).toMatch(
      /^Invalid dlq summarize option --region: got "us-east-1", where --queue-url "[^"]+" is a queue in eu-west-1;/,
    );
    const replay = thrown(() =>
      parseReplayArgs(['replay', '--archive-bucket', 'archive', '--from', '2026-01-01', '--to-queue', EU, '--region', 'us-east-1']),
    );
    expect(replay).toBeInstanceOf(ReplayOptionsError);
    expect(replay.message).toMatch(/^Invalid replay option --region: got "us-east-1", where --to-queue "[^"]+" is a queue in eu-west-1;/);
  });

  it('takes the same Region given twice, a local URL beside an AWS one, and anything with --endpoint', () => {
    expect(
      parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', EU, '--to', EU_SOURCE, '--region', 'eu-west-1'], NO_REGION),
    ).toMatchObject({ kind: 'queue-dlq', region: 'eu-west-1' });
    expect(parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', LOCAL, '--to', US], NO_REGION)).toMatchObject({ kind: 'queue-dlq' });
    const local = ['--endpoint', 'http://localhost:4566', '--region', 'us-east-1'];
    expect(parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', EU, '--to', US, ...local], NO_REGION)).toMatchObject({
      region: 'us-east-1',
    });
    expect(parseDlqArgs(['dlq', 'summarize', '--queue-url', EU, ...local])).toMatchObject({ region: 'us-east-1' });
  });
});

describe('the Region the clients get, before any AWS call', () => {
  const queueDlq = (extra: readonly string[] = []) =>
    parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', EU, '--to', EU_SOURCE, ...extra], NO_REGION) as never;

  it("the queue URL's, with no Region given anywhere", async () => {
    await expect(redriveRegion(queueDlq(), NO_REGION)).resolves.toBe('eu-west-1');
    await expect(summarizeRegion({ queueUrl: EU }, NO_REGION)).resolves.toBe('eu-west-1');
  });

  it('--region as given; none with --endpoint or a local URL (the SDK then resolves its own, as before)', async () => {
    await expect(redriveRegion(queueDlq(['--region', 'eu-west-1']), { ...NO_REGION, AWS_REGION: 'us-east-1' })).resolves.toBe('eu-west-1');
    await expect(
      summarizeRegion({ queueUrl: EU, endpoint: 'http://localhost:4566' }, { AWS_REGION: 'us-east-1' }),
    ).resolves.toBeUndefined();
    await expect(summarizeRegion({ queueUrl: LOCAL }, { AWS_REGION: 'us-east-1' })).resolves.toBeUndefined();
  });

  it('AWS_REGION naming the same Region is taken; another is refused, naming it', async () => {
    await expect(summarizeRegion({ queueUrl: EU }, { ...NO_REGION, AWS_REGION: 'eu-west-1' })).resolves.toBe('eu-west-1');
    const refused = summarizeRegion({ queueUrl: EU }, { ...NO_REGION, AWS_REGION: 'us-east-1' });
    await expect(refused).rejects.toBeInstanceOf(RedriveOptionsError);
    await expect(refused).rejects.toThrow(
      `Invalid dlq summarize option --region: none given, and AWS_REGION is "us-east-1", where --queue-url "${EU}" is a queue in eu-west-1; allowed: --region eu-west-1, or AWS_REGION set to eu-west-1`,
    );
  });

  it("the profile's region (credentials file before config file, AWS_PROFILE's profile) is checked as AWS_REGION is", async () => {
    const config = join(dir, 'config');
    writeFileSync(config, '[default]\nregion = us-east-1\n[profile ops]\nregion = eu-west-1\n');
    const env = { ...NO_REGION, AWS_CONFIG_FILE: config };
    await expect(redriveRegion(queueDlq(), env)).rejects.toThrow(
      /^Invalid redrive option --region: none given, and the region of AWS profile "default" is "us-east-1", where --queue-url "[^"]+" is a queue in eu-west-1; allowed: --region eu-west-1, or the region of AWS profile "default" set to eu-west-1 /,
    );
    await expect(redriveRegion(queueDlq(), { ...env, AWS_PROFILE: 'ops' })).resolves.toBe('eu-west-1');
    const credentials = join(dir, 'credentials');
    writeFileSync(credentials, '[default]\nregion = eu-west-1\n');
    await expect(redriveRegion(queueDlq(), { ...env, AWS_SHARED_CREDENTIALS_FILE: credentials })).resolves.toBe('eu-west-1');
  });
});

describe("a FIPS pseudo-Region (fips-us-east-1, us-east-1-fips) is the Region it stands for, as the SDK's client takes it", () => {
  const FIPS_QUEUE = 'https://sqs-fips.us-east-1.amazonaws.com/123456789012/orders-dlq';
  const usTopics = { ...NO_REGION, OUTBOX_TOPIC_ARNS: JSON.stringify({ orders: 'arn:aws:sns:us-east-1:123456789012:orders' }) };

  it('--region fips-us-east-1 with a queue URL in us-east-1 is taken as given (the client signs for us-east-1)', async () => {
    for (const region of ['fips-us-east-1', 'us-east-1-fips']) {
      for (const url of [FIPS_QUEUE, US]) {
        expect(parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', url, '--region', region], usTopics)).toMatchObject({ region });
        expect(parseDlqArgs(['dlq', 'summarize', '--queue-url', url, '--region', region])).toMatchObject({ region });
        await expect(summarizeRegion({ queueUrl: url, region }, NO_REGION)).resolves.toBe(region);
      }
    }
  });

  it("AWS_REGION set to a FIPS pseudo-Region of the queue URL is the SDK's own, taken; of another Region, refused", async () => {
    await expect(summarizeRegion({ queueUrl: FIPS_QUEUE }, { ...NO_REGION, AWS_REGION: 'fips-us-east-1' })).resolves.toBe('fips-us-east-1');
    await expect(summarizeRegion({ queueUrl: EU }, { ...NO_REGION, AWS_REGION: 'fips-us-east-1' })).rejects.toThrow(
      /^Invalid dlq summarize option --region: none given, and AWS_REGION is "fips-us-east-1", where --queue-url "[^"]+" is a queue in eu-west-1; /,
    );
    expect(thrown(() => parseDlqArgs(['dlq', 'summarize', '--queue-url', EU, '--region', 'fips-us-east-1']))).toBeInstanceOf(
      RedriveOptionsError,
    );
  });

  it('a topic ARN in us-east-1 with --region fips-us-east-1 is taken', () => {
    const args = ['redrive', 'relay-dlq', '--queue-url', FIPS_QUEUE, '--region', 'fips-us-east-1'];
    const topics = JSON.stringify({ orders: 'arn:aws:sns:us-east-1:123456789012:orders' });
    expect(parseRedriveArgs([...args, '--topic-arns', topics], NO_REGION)).toMatchObject({ region: 'fips-us-east-1' });
  });
});

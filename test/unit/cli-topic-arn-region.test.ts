import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { redriveRegion } from '../../shared/redrive/cli-region.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';

const EU_QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';
const EU_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:orders';
const US_TOPIC = 'arn:aws:sns:us-east-1:123456789012:payments';

/** An environment with no Region anywhere: no AWS_REGION, and profile files that do not exist. */
const dir = mkdtempSync(join(tmpdir(), 'cli-topic-arn-region-'));
const NO_REGION: NodeJS.ProcessEnv = {
  AWS_CONFIG_FILE: join(dir, 'no-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
};

const arns = (topics: Record<string, string>) => JSON.stringify(topics);
const onFailure = (extra: readonly string[]) => [
  'redrive',
  'on-failure',
  '--bucket',
  'on-failure-records',
  '--config',
  'outbox.json',
  ...extra,
];

/** The error the promise rejects with (a test fails when it resolves). */
async function rejected(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was thrown');
}

/** The refusal of the run's Region for `args` in `env` (a test fails when there is none). */
const refusal = (args: readonly string[], env: NodeJS.ProcessEnv) => rejected(redriveRegion(parseRedriveArgs(args, env) as never, env));

describe('a topic ARN of another Region than the run refused before any AWS call', () => {
  it('relay-dlq: a topic in another Region than --queue-url', async () => {
    const args = ['redrive', 'relay-dlq', '--queue-url', EU_QUEUE, '--topic-arns', arns({ orders: EU_TOPIC, payments: US_TOPIC })];
    const error = await refusal(args, NO_REGION);
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error.message).toBe(
      `Invalid redrive option --topic-arns: topic "payments" has "${US_TOPIC}", in us-east-1, where the run's Region is eu-west-1, named by --queue-url "${EU_QUEUE}"; allowed: an ARN in eu-west-1, as its client sends every call to the run's Region, signed for it, whatever Region the ARN names (or --endpoint for a local emulator)`,
    );
  });

  it('on-failure: a topic in another Region than --region', async () => {
    const error = await refusal(onFailure(['--region', 'us-east-1', '--topic-arns', arns({ orders: EU_TOPIC })]), NO_REGION);
    expect(error.message).toMatch(
      /^Invalid redrive option --topic-arns: topic "orders" has "arn:aws:sns:eu-west-1:[^"]+", in eu-west-1, where the run's Region is us-east-1, given by --region; /,
    );
  });

  it('topics of two Regions and nothing else naming one, from OUTBOX_TOPIC_ARNS: named by the variable', async () => {
    const env = { ...NO_REGION, OUTBOX_TOPIC_ARNS: arns({ orders: EU_TOPIC, payments: US_TOPIC }) };
    const error = await refusal(onFailure([]), env);
    expect(error.message).toMatch(
      /^Invalid redrive option --topic-arns: topic "payments" has "[^"]+" \(from OUTBOX_TOPIC_ARNS\), in us-east-1, where the run's Region is eu-west-1, named by topic "orders" of --topic-arns \(from OUTBOX_TOPIC_ARNS\); /,
    );
  });

  it("takes topics of the run's Region, and any with --endpoint", async () => {
    const same = ['redrive', 'relay-dlq', '--queue-url', EU_QUEUE, '--topic-arns', arns({ orders: EU_TOPIC })];
    await expect(redriveRegion(parseRedriveArgs(same, NO_REGION) as never, NO_REGION)).resolves.toBe('eu-west-1');
    const local = ['--endpoint', 'http://localhost:4566', '--topic-arns', arns({ orders: EU_TOPIC, payments: US_TOPIC })];
    const command = parseRedriveArgs(onFailure(['--region', 'us-east-1', ...local]), NO_REGION);
    await expect(redriveRegion(command as never, NO_REGION)).resolves.toBe('us-east-1');
  });

  it("takes any when the SDK's variables send the SNS calls to an endpoint, as --endpoint does", async () => {
    const mixed = onFailure(['--region', 'us-east-1', '--topic-arns', arns({ orders: EU_TOPIC })]);
    for (const variable of ['AWS_ENDPOINT_URL_SNS', 'AWS_ENDPOINT_URL']) {
      const env = { ...NO_REGION, [variable]: 'http://localhost:4566' };
      await expect(redriveRegion(parseRedriveArgs(mixed, env) as never, env)).resolves.toBe('us-east-1');
    }
    const ignored = { ...NO_REGION, AWS_ENDPOINT_URL_SNS: 'http://localhost:4566', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' };
    expect(await refusal(mixed, ignored)).toBeInstanceOf(RedriveOptionsError);
  });
});

describe("the run's Region from the topic ARNs, when nothing else names one", () => {
  const command = (topics: Record<string, string>) => parseRedriveArgs(onFailure(['--topic-arns', arns(topics)]), NO_REGION) as never;

  it("is the topics' Region with no --region, queue URL, AWS_REGION or profile region", async () => {
    await expect(redriveRegion(command({ orders: EU_TOPIC }), NO_REGION)).resolves.toBe('eu-west-1');
  });

  it("is the SDK's own when AWS_REGION names the topics' Region; another is refused, naming AWS_REGION", async () => {
    await expect(redriveRegion(command({ orders: EU_TOPIC }), { ...NO_REGION, AWS_REGION: 'eu-west-1' })).resolves.toBeUndefined();
    const error = await rejected(redriveRegion(command({ orders: EU_TOPIC }), { ...NO_REGION, AWS_REGION: 'us-east-1' }));
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error.message).toBe(
      `Invalid redrive option --topic-arns: topic "orders" has "${EU_TOPIC}", in eu-west-1, where the run's Region is us-east-1, from AWS_REGION (no --region given, and no queue URL names one); allowed: an ARN in us-east-1, or --region eu-west-1 (or AWS_REGION set to eu-west-1) for ARNs all in eu-west-1, as its client sends every call to the run's Region, signed for it, whatever Region the ARN names (or --endpoint for a local emulator)`,
    );
  });

  it('the queue URL still comes first: a topic elsewhere is refused at run time too', async () => {
    const relay = { kind: 'relay-dlq', queueUrl: EU_QUEUE, topicArns: { payments: US_TOPIC } } as const;
    const error = await rejected(redriveRegion(relay, NO_REGION));
    expect(error.message).toMatch(
      /^Invalid redrive option --topic-arns: topic "payments" has "[^"]+", in us-east-1, where the run's Region is eu-west-1, named by --queue-url /,
    );
  });
});

describe("a profile whose endpoint_url sends the SNS calls to an endpoint, as the SDK's client reads it", () => {
  const LOCAL_QUEUE = 'http://localhost:4566/000000000000/orders-dlq';
  const args = ['redrive', 'relay-dlq', '--queue-url', LOCAL_QUEUE, '--topic-arns', arns({ orders: EU_TOPIC })];
  const withConfig = (name: string, text: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const config = join(dir, name);
    writeFileSync(config, text);
    return { ...NO_REGION, AWS_CONFIG_FILE: config, AWS_PROFILE: 'local', ...extra };
  };

  it("takes a topic of any Region when the profile's endpoint_url (or its services section's sns endpoint_url) is set", async () => {
    for (const env of [
      withConfig('endpoint-url', '[profile local]\nregion = us-east-1\nendpoint_url = http://localhost:4566\n'),
      withConfig(
        'services',
        '[profile local]\nregion = us-east-1\nservices = emulator\n[services emulator]\nsns =\n  endpoint_url = http://localhost:4566\n',
      ),
    ]) {
      await expect(redriveRegion(parseRedriveArgs(args, env) as never, env)).resolves.toBeUndefined();
      await expect(redriveRegion(parseRedriveArgs([...args, '--region', 'us-east-1'], env) as never, env)).resolves.toBe('us-east-1');
    }
  });

  it("refuses it when the endpoint is for another service, or ignored (the profile's ignore_configured_endpoint_urls)", async () => {
    for (const env of [
      withConfig(
        'sqs-only',
        '[profile local]\nregion = us-east-1\nservices = emulator\n[services emulator]\nsqs =\n  endpoint_url = http://localhost:4566\n',
      ),
      withConfig(
        'ignored',
        '[profile local]\nregion = us-east-1\nendpoint_url = http://localhost:4566\nignore_configured_endpoint_urls = true\n',
      ),
    ]) {
      const error = await refusal(args, env);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect(error.message).toMatch(
        /^Invalid redrive option --topic-arns: topic "orders" has "[^"]+", in eu-west-1, where the run's Region is us-east-1, from the region of AWS profile "local" /,
      );
    }
  });
});

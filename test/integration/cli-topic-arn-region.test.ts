import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { config as exampleConfig } from '../../examples/orders/outbox.config.js';
import { serializeConfig } from '../../shared/config.js';
import { runCliIn as cli } from '../helpers/cli.js';
import { noRegionShell } from '../helpers/no-region-shell.js';

const EU_QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';
const topics = (region: string) =>
  JSON.stringify(Object.fromEntries(exampleConfig.topics.map(({ name }) => [name, `arn:aws:sns:${region}:123456789012:${name}`])));

/** An adopter's shell with no Region set anywhere and no credentials ({@link noRegionShell}). */
const { dir, env: noRegion } = noRegionShell('cli-topic-arn-region', ['OUTBOX_TOPIC_ARNS']);
const configFile = join(dir, 'outbox.config.json');
writeFileSync(configFile, serializeConfig(exampleConfig));

describe("the CLI's topic ARNs in the run's Region", () => {
  it('refuses, before any call, a topic of another Region than the queue URL, and than AWS_REGION', async () => {
    const relay = await cli(['redrive', 'relay-dlq', '--queue-url', EU_QUEUE, '--topic-arns', topics('us-east-1')], noRegion());
    expect(relay).toMatchObject({ code: 2, stdout: '' });
    expect(relay.stderr).toMatch(
      /^Invalid redrive option --topic-arns: topic "[^"]+" has "arn:aws:sns:us-east-1:[^"]+", in us-east-1, where the run's Region is eu-west-1, named by --queue-url "[^"]+"; /,
    );

    const onFailure = ['redrive', 'on-failure', '--bucket', 'on-failure-records', '--config', configFile];
    const fromEnv = await cli(onFailure, noRegion({ AWS_REGION: 'us-east-1', OUTBOX_TOPIC_ARNS: topics('eu-west-1') }));
    expect(fromEnv).toMatchObject({ code: 2, stdout: '' });
    expect(fromEnv.stderr).toMatch(
      /^Invalid redrive option --topic-arns: topic "[^"]+" has "arn:aws:sns:eu-west-1:[^"]+" \(from OUTBOX_TOPIC_ARNS\), in eu-west-1, where the run's Region is us-east-1, from AWS_REGION \(no --region given, and no queue URL names one\); allowed: an ARN in us-east-1, or --region eu-west-1 /,
    );
  });

  it("on-failure from a bucket, with no Region given anywhere, takes the topics' and gets past the Region to the credentials", async () => {
    const args = ['redrive', 'on-failure', '--bucket', 'on-failure-records', '--config', configFile, '--topic-arns', topics('eu-west-1')];
    const { code, stderr } = await cli(args, noRegion());

    expect(stderr).not.toContain('Region is missing');
    expect(stderr).toMatch(/^Redrive stopped: [^\n]*; no AWS credentials were found; /);
    expect(code).toBe(1);
  });
});

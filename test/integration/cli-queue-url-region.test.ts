import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliIn as cli } from '../helpers/cli.js';
import { noRegionShell } from '../helpers/no-region-shell.js';

const EU = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';
const US = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';

/** An adopter's shell with no Region set anywhere and no credentials ({@link noRegionShell}). */
const { dir, env: noRegion } = noRegionShell('cli-queue-url-region');

describe('the CLI takes the Region from the queue URL', () => {
  it('dlq summarize without --region or AWS_REGION gets past the Region to the credentials', async () => {
    const { code, stderr } = await cli(['dlq', 'summarize', '--queue-url', EU], noRegion());

    expect(stderr).not.toContain('Region is missing');
    expect(stderr).toMatch(/^dlq summarize stopped: [^\n]*; no AWS credentials were found; /);
    expect(code).toBe(1);
  });

  it('dlq summarize refuses, before any call, AWS_REGION naming another Region than the queue URL (exit status 2)', async () => {
    const refused = await cli(['dlq', 'summarize', '--queue-url', EU], noRegion({ AWS_REGION: 'us-east-1' }));
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toBe(
      `Invalid dlq summarize option --region: none given, and AWS_REGION is "us-east-1", where --queue-url "${EU}" is a queue in eu-west-1; allowed: --region eu-west-1, or AWS_REGION set to eu-west-1 (each call is signed for the tool's Region and sent to the queue URL's host, which refuses another Region's signature)\n`,
    );
  });

  it('refuses, before any call, queues of two Regions, --region other than the URL, and AWS_REGION or the profile naming another', async () => {
    const mixed = await cli(['redrive', 'queue-dlq', '--queue-url', EU, '--to', US], noRegion());
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(
      /^Invalid redrive option --to: got "[^"]+", a queue in us-east-1, where --queue-url "[^"]+" is in eu-west-1; /,
    );

    const replay = ['replay', '--archive-bucket', 'archive', '--from', '2026-01-01', '--to-queue', EU, '--dry-run'];
    const flag = await cli([...replay, '--region', 'us-east-1'], noRegion());
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^Invalid replay option --region: got "us-east-1", where --to-queue "[^"]+" is a queue in eu-west-1; /);

    const fromEnv = await cli(replay, noRegion({ AWS_REGION: 'us-east-1' }));
    expect(fromEnv).toMatchObject({ code: 2, stdout: '' });
    expect(fromEnv.stderr).toMatch(
      /^Invalid replay option --region: none given, and AWS_REGION is "us-east-1", where --to-queue "[^"]+" is a queue in eu-west-1; allowed: --region eu-west-1, /,
    );

    writeFileSync(join(dir, 'config'), '[default]\nregion = us-east-1\n');
    const fromProfile = await cli(
      ['redrive', 'relay-dlq', '--queue-url', EU, '--topic-arns', '{"orders":"arn:aws:sns:eu-west-1:123456789012:orders"}'],
      noRegion(),
    );
    expect(fromProfile.code).toBe(2);
    expect(fromProfile.stderr).toMatch(
      /^Invalid redrive option --region: none given, and the region of AWS profile "default" is "us-east-1", where --queue-url /,
    );
  });
});

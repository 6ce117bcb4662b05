import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode } from '@jridgewell/sourcemap-codec';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONSUMER_TABLE_ENV, OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { config } from '../../examples/orders/outbox.config.js';
import { prebuiltAssetDir } from '../../infra/private/assets.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../../shared/relay/metrics.js';
import { logicalId, resource } from '../helpers/cdk.js';

// One synthesis with real esbuild bundling of the repository's handlers.
let app: App;
let template: Template;

beforeAll(() => {
  app = new App();
  template = Template.fromStack(new OutboxStack(app, 'Bundles', { config }));
  // esbuild bundles two handlers with the AWS SDK; on a machine busy with other suites that takes a while.
}, 240_000);

/** Loads the function's bundle as Lambda would (ESM, `index.handler`) and calls it once, in a child process. */
function invokeBundle(functionPrefix: string, env: Record<string, string>, event: unknown): unknown {
  const fn = resource(template, 'AWS::Lambda::Function', logicalId(template, 'AWS::Lambda::Function', functionPrefix)).Properties;
  expect(fn.Handler).toBe('index.handler');
  const assetDir = join(app.outdir, `asset.${(fn.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '')}`);
  expect(existsSync(join(assetDir, 'index.mjs'))).toBe(true);
  const script = `const { handler } = await import('./index.mjs'); process.stdout.write('\\n' + JSON.stringify(await handler(${JSON.stringify(event)}, {})));`;
  const output = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
    cwd: assetDir,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', ...env },
  });
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

/** What the relay bundle writes to stderr when it fails to load with `env`. */
function relayLoadFailure(env: Record<string, string>): string {
  try {
    invokeBundle('OutboxRelayFunction', env, { Records: [] });
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr);
  }
  throw new Error('the relay bundle loaded and ran');
}

/** The relay's environment as the stack and Lambda set it. */
const relayEnv = {
  [RELAY_ENV.config]: JSON.stringify(config),
  [RELAY_ENV.topicArns]: JSON.stringify(
    Object.fromEntries(config.topics.map((t) => [t.name, `arn:aws:sns:eu-west-1:123456789012:${t.name}`])),
  ),
  [RELAY_ENV.deadLetterQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq',
  [LAMBDA_FUNCTION_NAME_ENV]: 'outbox-relay',
};

describe('Lambda bundles', { timeout: 120_000 }, () => {
  it('bundles the relay into one ESM file that loads and relays an empty batch', () => {
    expect(invokeBundle('OutboxRelayFunction', relayEnv, { Records: [] })).toEqual({ batchItemFailures: [] });
  });

  it('bundles the example consumer into one ESM file that loads and consumes an empty batch', () => {
    expect(invokeBundle('ExampleConsumerFunction', { [EXAMPLE_CONSUMER_TABLE_ENV]: 'outbox' }, { Records: [] })).toEqual({
      batchItemFailures: [],
    });
  });

  it('fails to load the relay bundle without its configuration, naming the variable', () => {
    expect(relayLoadFailure({})).toContain(`Environment variable ${RELAY_ENV.config}: is not set`);
  });

  it('maps a stack trace of the relay bundle to the package’s own source files, and nothing into node_modules', () => {
    // As deployed: OutboxFunction sets NODE_OPTIONS=--enable-source-maps.
    expect(relayLoadFailure({ NODE_OPTIONS: '--enable-source-maps' })).toMatch(/at configFromEnv \(.*shared\/config\.ts:\d+:\d+\)/);
    const map = JSON.parse(readFileSync(join(prebuiltAssetDir('relay'), 'index.mjs.map'), 'utf8')) as {
      sources: string[];
      mappings: string;
    };
    const mapped = new Set(decode(map.mappings).flatMap((line) => line.filter((s) => s.length > 1).map((s) => map.sources[s[1]!]!)));
    expect([...mapped].filter((source) => source.includes('node_modules/'))).toEqual([]);
    // Sources no kept segment uses are dropped with their segments, so the map lists none of node_modules.
    expect(map.sources.filter((source) => source.includes('node_modules/'))).toEqual([]);
    expect([...mapped].some((source) => source.endsWith('shared/relay/relay-run.ts'))).toBe(true);
  });

  it('fails to load the relay bundle outside Lambda, naming the function-name variable its metrics need', () => {
    const { [LAMBDA_FUNCTION_NAME_ENV]: _, ...outsideLambda } = relayEnv;
    expect(relayLoadFailure(outsideLambda)).toContain(`Environment variable ${LAMBDA_FUNCTION_NAME_ENV}: is not set`);
  });
});

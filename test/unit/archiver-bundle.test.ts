import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Built by the tests' global setup (scripts/build.mjs --assets), as the package ships it.
const bundleDir = fileURLToPath(new URL('../../dist/assets/archiver/', import.meta.url));

/** Loads the bundle as Lambda would (ESM, `index.handler`) in a child process and calls it once with `event`. */
async function invoke(env: Record<string, string>, event: unknown): Promise<unknown> {
  const script = `const { handler } = await import('./index.mjs'); process.stdout.write('\\n' + JSON.stringify(await handler(${JSON.stringify(event)}, {})));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
    cwd: bundleDir,
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('the archiver bundle', () => {
  it('imports only Node built-ins and the S3 client, which the Lambda Node.js runtime provides', () => {
    const code = readFileSync(`${bundleDir}index.mjs`, 'utf8');
    const imported = new Set([...code.matchAll(/(?:from\s*|import\s*\(\s*)"([^"]+)"/g)].map((m) => m[1]!));
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    expect([...imported].filter((name) => !builtins.has(name))).toEqual(['@aws-sdk/client-s3']);
  });

  it('loads with its bucket and function name and archives an empty batch', async () => {
    const env = {
      OUTBOX_ARCHIVE_BUCKET: 'orders-archive',
      AWS_LAMBDA_FUNCTION_NAME: 'orders-archiver',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    expect(await invoke(env, { Records: [] })).toEqual({ batchItemFailures: [] });
  });

  it('fails to load without its bucket, naming the variable', async () => {
    await expect(invoke({ AWS_LAMBDA_FUNCTION_NAME: 'orders-archiver' }, { Records: [] })).rejects.toThrow(
      /OUTBOX_ARCHIVE_BUCKET: is not set; allowed: an S3 bucket name/,
    );
  });

  it('fails to load with a blank bucket or without its function name, naming the variable, what it held and what it may hold', async () => {
    await expect(invoke({ OUTBOX_ARCHIVE_BUCKET: ' ', AWS_LAMBDA_FUNCTION_NAME: 'orders-archiver' }, { Records: [] })).rejects.toThrow(
      /OUTBOX_ARCHIVE_BUCKET: is not set \(got " "\); allowed: an S3 bucket name/,
    );
    await expect(invoke({ OUTBOX_ARCHIVE_BUCKET: 'orders-archive' }, { Records: [] })).rejects.toThrow(
      /AWS_LAMBDA_FUNCTION_NAME: is not set; allowed: the archiver function's name, which Lambda sets/,
    );
  });
});

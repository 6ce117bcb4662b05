import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tsImport } from 'tsx/esm/api';
import type { TestProject } from 'vitest/node';
import type { DynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';
import { compileCli } from './compiled-cli.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    /** The CLI's main module compiled to JavaScript for this run (see compiled-cli.ts). */
    compiledCli: string;
  }
}

let ddb: DynamoDbLocal | undefined;
let scratch: { readonly dir: string; readonly previous: string | undefined } | undefined;

/**
 * A temporary directory for the run, which every test process inherits as its `TMPDIR` and which
 * is removed at the end: a CDK app given no `outdir` synthesises (and bundles) into a new
 * `cdk.out*` directory there and never removes it: a full run would leave some ninety of them.
 */
function useScratchTmpdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dynamodb-outbox-test-'));
  scratch = { dir, previous: process.env.TMPDIR };
  process.env.TMPDIR = dir;
  return dir;
}

/**
 * The relay and processor bundles the constructs deploy, built from the sources as the package
 * build makes them, so the infrastructure tests synthesise (and run) what a user would deploy.
 */
async function buildPrebuiltAssets(): Promise<void> {
  const build = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [build, '--assets']);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
}

/**
 * DynamoDB Local's starter, loaded by Node itself through tsx rather than by the module runner
 * vitest loads this file with: that runner took some 8 s to load the AWS SDK it imports, the
 * whole run waiting, where Node takes under one.
 */
async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const starter = (await tsImport(
    '../../shared/local/stack/dynamodb-local.ts',
    import.meta.url,
  )) as typeof import('../../shared/local/stack/dynamodb-local.js');
  return starter.startDynamoDbLocal();
}

/**
 * One DynamoDB Local (in memory, free port) for the whole run, started while the assets build and
 * the CLI compiles; each test file makes its own tables.
 */
export async function setup(project: TestProject): Promise<void> {
  const dir = useScratchTmpdir();
  const cli = compileCli(join(dir, 'compiled-cli'));
  const started = startDynamoDbLocal().then((running) => {
    ddb = running;
    return running.endpoint;
  });
  const failed = (await Promise.allSettled([started, buildPrebuiltAssets(), cli])).find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await teardown();
    throw failed.reason;
  }
  project.provide('dynamodbEndpoint', await started);
  project.provide('compiledCli', await cli);
}

export async function teardown(): Promise<void> {
  await ddb?.stop();
  ddb = undefined;
  if (scratch === undefined) return;
  if (scratch.previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = scratch.previous;
  rmSync(scratch.dir, { recursive: true, force: true });
  scratch = undefined;
}

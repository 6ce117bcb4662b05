import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

let ddb: DynamoDbLocal | undefined;
let scratch: { readonly dir: string; readonly previous: string | undefined } | undefined;

/**
 * A temporary directory for the run, which every test process inherits as its `TMPDIR` and which
 * is removed at the end: a CDK app given no `outdir` synthesises (and bundles) into a new
 * `cdk.out*` directory there and never removes it: a full run would leave some ninety of them.
 */
function useScratchTmpdir(): void {
  const dir = mkdtempSync(join(tmpdir(), 'dynamodb-outbox-test-'));
  scratch = { dir, previous: process.env.TMPDIR };
  process.env.TMPDIR = dir;
}

/**
 * The relay and processor bundles the constructs deploy, built from the sources as the package
 * build makes them, so the infrastructure tests synthesise (and run) what a user would deploy.
 */
function buildPrebuiltAssets(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url)), '--assets'], { stdio: 'inherit' });
}

/** One DynamoDB Local (in memory, free port) for the whole run; each test file makes its own tables. */
export async function setup(project: TestProject): Promise<void> {
  buildPrebuiltAssets();
  useScratchTmpdir();
  ddb = await startDynamoDbLocal();
  project.provide('dynamodbEndpoint', ddb.endpoint);
}

export async function teardown(): Promise<void> {
  await ddb?.stop();
  if (scratch === undefined) return;
  if (scratch.previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = scratch.previous;
  rmSync(scratch.dir, { recursive: true, force: true });
}

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'cdk-cli-'));

afterAll(() => rmSync(out, { recursive: true, force: true }));

// The CLI this repository installs must read the cloud assembly its aws-cdk-lib writes: a CLI too
// old for the schema fails here ("Maximum schema version supported is …"), as `cdk deploy` would.
describe('npx cdk synth with the installed CLI', { timeout: 600_000 }, () => {
  it('synthesises the example app from cdk.json, and the app ends with the cdk-nag count per rule pack, none unacknowledged', async () => {
    const { stderr } = await run('npx', ['--no-install', 'cdk', 'synth', '--quiet', '--output', out], {
      cwd: ROOT,
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DEFAULT_REGION: 'eu-west-1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(stderr).toMatch(/^cdk-nag: AwsSolutions \d+ findings, 0 unacknowledged; Serverless \d+ findings, 0 unacknowledged$/m);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string }> };
    const stacks = Object.values(manifest.artifacts).filter((a) => a.type === 'aws:cloudformation:stack');
    expect(stacks).toHaveLength(1);
  });
});

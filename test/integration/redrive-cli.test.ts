import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

const { server, clients } = await emulatorForFile();

/** Runs the CLI as a person would; asynchronously, so the in-process emulator keeps answering. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: LOCAL_REGION,
    NODE_NO_WARNINGS: '1',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'functions/redrive/cli.ts', ...args], { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('redrive CLI', () => {
  it('reports a dry run, then moves a subscriber DLQ back with counts before and after', async () => {
    const source = server.createQueue('cli-source');
    const dlq = server.createQueue('cli-source-dlq');
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dlq.queueUrl,
        Entries: Array.from({ length: 7 }, (_, i) => ({ Id: String(i), MessageBody: anEnvelope({ aggregateId: `cli-${i}` }).body })),
      }),
    );
    const args = ['redrive', 'queue-dlq', '--queue-url', dlq.queueUrl, '--to', source.queueUrl, '--endpoint', server.address];

    const dry = await cli([...args, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('DRY RUN');
    expect(dry.stdout).toMatch(/would move\s+7/);
    expect(queueDepth(server, 'cli-source-dlq')).toBe(7);

    const real = await cli([...args, '--rate', '500']);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/before:\s+7/);
    expect(real.stdout).toMatch(/moved\s+7/);
    expect(real.stdout).toMatch(/after:\s+0/);
    expect(queueDepth(server, 'cli-source-dlq')).toBe(0);
    expect(queueDepth(server, 'cli-source')).toBe(7);
  }, 120_000);

  it('rejects an unknown flag with exit status 2, naming it, and touches nothing', async () => {
    const dlq = server.createQueue('cli-typo-dlq');
    await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: dlq.queueUrl, Entries: [{ Id: '0', MessageBody: 'x' }] }));

    const result = await cli(['redrive', 'queue-dlq', '--queue-url', dlq.queueUrl, '--too', 'x', '--endpoint', server.address]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--too'");
    expect(queueDepth(server, 'cli-typo-dlq')).toBe(1);
  }, 120_000);
});

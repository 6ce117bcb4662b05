import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { archiveObjectKey } from '../../shared/archive/layout.js';
import type { ReplaySummary } from '../../shared/archive/replay-types.js';
import { aHistory, putArchive } from '../helpers/archive-fixtures.js';
import { cliEnv, compiledCliArgs, REPOSITORY_ROOT, runCli as runCliFrom } from '../helpers/cli.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

const { server, clients } = await emulatorForFile();
// The compiled bin, as an installed package runs it (no TypeScript config here to need tsx).
const compiled = compiledCliArgs();
const runCli = (args: readonly string[]) => runCliFrom(args, {}, compiled);

describe('dynamodb-outbox replay', () => {
  it('counts in a dry run, sends with a summary and a checkpoint, sends nothing more when run again, and refuses another selection on that checkpoint', async () => {
    const history = aHistory({
      events: 300,
      aggregates: 12,
      types: ['order.placed', 'order.paid'],
      startMs: Date.parse('2026-03-01T00:00:00Z'),
      spanMs: 86_400_000,
    });
    server.createBucket('cli-archive');
    await putArchive(clients.s3, 'cli-archive', history, { duplicateRatio: 0.1 });
    const corrupt = archiveObjectKey({ aggregateType: 'order', type: 'order.paid', hour: '2026-03-01T05' }, 'broken');
    await clients.s3.send(new PutObjectCommand({ Bucket: 'cli-archive', Key: corrupt, Body: 'not gzip' }));
    const queue = server.createQueue('cli-replay.fifo', { attributes: { FifoQueue: 'true' } });
    const checkpoint = join(mkdtempSync(join(tmpdir(), 'replay-cli-')), 'run.checkpoint');
    const args = ['replay', '--archive-bucket', 'cli-archive', '--from', '2026-03-01', '--to', '2026-03-02', '--to-queue', queue.queueUrl];
    const local = ['--endpoint', server.address, '--checkpoint', checkpoint];

    const dry = await runCli([...args, ...local, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout) as ReplaySummary).toMatchObject({ status: 'dry-run', sent: 300 });
    expect(queueDepth(server, 'cli-replay.fifo')).toBe(0);

    const real = await runCli([...args, ...local, '--rate', '2000']);
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('Replay completed');
    expect(real.stdout).toMatch(/sent\s+300/);
    expect(real.stdout).toMatch(/order\.placed: \d+/);
    expect(real.stdout).toContain(`corrupt ${corrupt}: archive object`);
    expect(real.stdout).toContain(`checkpoint:  ${checkpoint}`);
    expect(queueDepth(server, 'cli-replay.fifo')).toBe(300);

    const again = await runCli([...args, ...local]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('says this replay completed');
    expect(queueDepth(server, 'cli-replay.fifo')).toBe(300);

    const other = await runCli([...args, ...local, '--type', 'order.paid']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is of another replay (types: none in the checkpoint, ["order.paid"] given)');
  }, 120_000);

  it('rejects a bad flag value with exit status 2, naming the flag, before any AWS call', async () => {
    const result = await runCli(['replay', '--archive-bucket', 'cli-archive', '--from', 'last week', '--to-queue', 'http://localhost:1/q']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid replay option --from: got "last week"');
    expect(result.stderr).toContain('Usage: dynamodb-outbox replay');
  });

  it('stops on Ctrl-C after the requests in flight, exits 130, and the same command then sends the rest, none twice', async () => {
    const history = aHistory({
      events: 400,
      aggregates: 40,
      types: ['order.placed'],
      startMs: Date.parse('2026-03-01T00:00:00Z'),
      spanMs: 86_400_000,
    });
    server.createBucket('cli-sigint');
    await putArchive(clients.s3, 'cli-sigint', history);
    const queue = server.createQueue('cli-sigint');
    const checkpoint = join(mkdtempSync(join(tmpdir(), 'replay-cli-')), 'sigint.checkpoint');
    const args = ['replay', '--archive-bucket', 'cli-sigint', '--from', '2026-03-01', '--to', '2026-03-02', '--to-queue', queue.queueUrl];
    const local = ['--endpoint', server.address, '--checkpoint', checkpoint];

    const child = spawn(process.execPath, [...compiled, ...args, ...local, '--rate', '50'], { cwd: REPOSITORY_ROOT, env: cliEnv() });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    await waitFor(() => queueDepth(server, 'cli-sigint') >= 50, { timeoutMs: 60_000, what: 'the first 50 events sent' });
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number];

    expect(code).toBe(130);
    expect(stdout).toContain('Replay interrupted');
    const sentFirst = queueDepth(server, 'cli-sigint');
    expect(sentFirst).toBeLessThan(400);
    const rest = await runCli([...args, ...local]);
    expect(rest.code).toBe(0);
    expect(rest.stdout).toMatch(new RegExp(`sent\\s+${400 - sentFirst}\\b`));
    const ids = queueBodies(server, 'cli-sigint').map((body) => (JSON.parse(body) as { id: string }).id);
    expect(ids).toHaveLength(400);
    expect(new Set(ids)).toEqual(new Set(history.map((e) => e.id)));
  }, 120_000);
});

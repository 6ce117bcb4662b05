import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { archiveObjectKey } from '../../shared/archive/layout.js';
import type { ReplaySummary } from '../../shared/archive/replay-types.js';
import { aHistory, putArchive } from '../helpers/archive-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

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
});

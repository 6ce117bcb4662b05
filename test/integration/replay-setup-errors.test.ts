import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReplayArgs } from '../../shared/archive/replay-cli.js';
import { runReplayCommand } from '../../shared/archive/replay-command.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { aHistory, putArchive } from '../helpers/archive-fixtures.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

/*
 * A replay stopped by how it was set up (a bucket or queue that is not there, no region) says what
 * to do by the flags given, as redrive and dlq summarize do, not only the SDK's words.
 */

const { server, clients } = await emulatorForFile();
// The emulator's credentials, as an operator's environment holds theirs; the region is given per run.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey });
delete process.env.AWS_REGION;
delete process.env.AWS_DEFAULT_REGION;

const ARCHIVE = 'replay-setup-archive';
server.createBucket(ARCHIVE);
await putArchive(
  clients.s3,
  ARCHIVE,
  aHistory({ events: 5, aggregates: 2, types: ['order.placed'], startMs: Date.parse('2026-03-01T01:00:00Z'), spanMs: 60_000 }),
);

/** Runs `replay` as the command line does (a checkpoint of its own), with `args`; its exit status and stderr. */
async function replay(...args: string[]): Promise<{ code: number; stderr: string }> {
  const checkpoint = join(mkdtempSync(join(tmpdir(), 'replay-setup-')), 'run.checkpoint');
  const own = args.includes('--checkpoint') ? [] : ['--checkpoint', checkpoint];
  const command = parseReplayArgs(['replay', '--from', '2026-03-01', '--to', '2026-03-02', ...own, ...args]);
  if (command.kind !== 'replay') throw new Error('not a replay');
  let stderr = '';
  const write = (text: string) => {
    stderr += text;
    return true;
  };
  const code = await runReplayCommand(command, new AbortController().signal, { stdout: { write: () => true }, stderr: { write } });
  return { code, stderr };
}

describe('a replay stopped by its set-up', () => {
  const local = ['--endpoint', server.address, '--region', LOCAL_REGION];

  it('names --archive-bucket when the bucket does not exist, in a dry run too', async () => {
    const { queueUrl } = server.createQueue('replay-setup-no-bucket');

    const run = await replay('--archive-bucket', 'no-such-archive', '--to-queue', queueUrl, ...local);

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Replay stopped \[REPLAY_STOPPED\]: replay stopped after 0 events sent: [^\n]*\bno-such-archive; the bucket does not exist \(--archive-bucket no-such-archive\); allowed: an existing bucket's name\n$/,
    );
    expect(await replay('--archive-bucket', 'no-such-archive', '--to-queue', queueUrl, ...local, '--dry-run')).toEqual(run);
  });

  it('names --to-queue and the endpoint when the queue does not exist', async () => {
    const missing = server.createQueue('replay-setup-other').queueUrl.replace(/replay-setup-other$/, 'replay-setup-missing');

    // The archive is read before the first send: progress lines come first.
    const { code, stderr } = await replay('--archive-bucket', ARCHIVE, '--to-queue', missing, ...local);

    expect(code).toBe(1);
    expect(stderr).toMatch(
      /(^|\n)Replay stopped \[REPLAY_STOPPED\]: replay stopped after 0 events sent: SendMessageBatch to \S+ failed: [^\n]*[^.]; a queue given does not exist/,
    );
    expect(stderr).toContain(
      `; a queue given does not exist (--to-queue ${missing}); allowed: URLs of existing queues, in the region and --endpoint ${server.address} the tool uses (--region, or AWS_REGION)\n`,
    );
  });

  it('says how to give a region when none is set', async () => {
    const { queueUrl } = server.createQueue('replay-setup-no-region');

    const { code, stderr } = await replay('--archive-bucket', ARCHIVE, '--to-queue', queueUrl, '--endpoint', server.address);

    expect(code).toBe(1);
    expect(stderr).toBe(
      'Replay stopped [REPLAY_STOPPED]: replay stopped after 0 events sent: Region is missing; no AWS region is set; allowed: --region NAME, or AWS_REGION in the environment\n',
    );
  });

  it('refuses a checkpoint it cannot write as a usage error, before it reads or sends anything', async () => {
    const { queueUrl } = server.createQueue('replay-setup-checkpoint');
    const checkpoint = join(tmpdir(), 'replay-setup-no-such-directory', 'run.checkpoint');

    const { code, stderr } = await replay('--archive-bucket', ARCHIVE, '--to-queue', queueUrl, ...local, '--checkpoint', checkpoint);

    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^Invalid replay option --checkpoint: got ${JSON.stringify(checkpoint)}, which cannot be written \\(ENOENT: [^\\n]*\\); allowed: a file in an existing directory the replay may write to; nothing was read or sent\\n$`,
      ),
    );
    expect(queueDepth(server, 'replay-setup-checkpoint')).toBe(0);
  });
});

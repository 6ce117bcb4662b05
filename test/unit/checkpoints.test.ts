import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileCheckpointStore, RELAY_CHECKPOINT_FILE } from '../../shared/local/event-source/checkpoints.js';

const STREAM = 'arn:aws:dynamodb:ddblocal:000000000000:table/outbox/stream/2026-01-01T00:00:00.000';
let dir: string | undefined;

afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const checkpointFile = (): string => {
  dir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
  return join(dir, RELAY_CHECKPOINT_FILE);
};

describe('file checkpoint store', () => {
  it('writes every change through a temporary file renamed over the old one, and reads it back in the next run', async () => {
    const path = checkpointFile();
    const first = await fileCheckpointStore(path, STREAM);
    expect(first.get('shardId-1')).toBeUndefined();
    for (let i = 1; i <= 50; i++) first.set('shardId-1', String(100 + i).padStart(21, '0'));
    first.set('shardId-2', '000000000000000000007');
    await first.flush();

    expect(readdirSync(dir!)).toEqual([RELAY_CHECKPOINT_FILE]);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      streamArn: STREAM,
      shards: { 'shardId-1': '000000000000000000150', 'shardId-2': '000000000000000000007' },
    });
    const next = await fileCheckpointStore(path, STREAM);
    expect(next.get('shardId-1')).toBe('000000000000000000150');

    next.retain(new Set(['shardId-2']));
    await next.flush();
    expect((await fileCheckpointStore(path, STREAM)).get('shardId-1')).toBeUndefined();
  });

  it('writes again on flush() after a failed write, and rejects while the file cannot be written', async () => {
    const path = checkpointFile();
    const errors: unknown[] = [];
    const store = await fileCheckpointStore(path, STREAM, (error) => errors.push(error));
    // A directory in the file's place: every write fails to rename over it.
    mkdirSync(path);
    writeFileSync(join(path, 'in-the-way'), '');
    store.set('shardId-1', '000000000000000000150');
    await expect(store.flush()).rejects.toMatchObject({ syscall: 'rename' });
    expect(errors.length).toBeGreaterThanOrEqual(1);

    rmSync(path, { recursive: true });
    await store.flush();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ streamArn: STREAM, shards: { 'shardId-1': '000000000000000000150' } });
  });

  it('ignores the checkpoints of another stream: the table was created again', async () => {
    const path = checkpointFile();
    writeFileSync(path, JSON.stringify({ streamArn: `${STREAM}-old`, shards: { 'shardId-1': '000000000000000000150' } }));

    expect((await fileCheckpointStore(path, STREAM)).get('shardId-1')).toBeUndefined();
  });

  it('refuses a file that is not a checkpoint file with a one-line error naming it and what is allowed', async () => {
    const path = checkpointFile();
    writeFileSync(path, '{"streamArn": 1');

    const error = await fileCheckpointStore(path, STREAM).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'INVALID_CHECKPOINT' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^${path.replaceAll('/', '\\/')} is not a relay checkpoint file \\(not JSON\\); allowed: .*delete it to read the stream from its oldest record$`,
      ),
    );
    expect((error as Error).message).not.toContain('\n');
  });
});

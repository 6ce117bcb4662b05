import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayArchive } from '../../shared/archive/replay.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import type { ReplayArchiveOptions } from '../../shared/archive/replay-types.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill.fifo';

describe('replayArchive given an aggregate type that is not well-formed Unicode', () => {
  it.each<[string, Partial<ReplayArchiveOptions>, string, string]>([
    ['aggregateType', { aggregateType: 'order\uD800' }, 'aggregateType', 'got "order\\ud800"'],
    ['aggregate', { aggregate: { type: 'order\uDC00', id: 'o-1' } }, 'aggregate', 'got {"type":"order\\udc00","id":"o-1"}'],
  ])('refuses %s as an option, before anything is read or a checkpoint written', async (_, extra, field, given) => {
    // Its archive key segment cannot be URI-encoded: the listing threw a URIError, reported as a stopped run.
    const calls: unknown[] = [];
    const checkpointPath = join(mkdtempSync(join(tmpdir(), 'replay-')), 'run.checkpoint');
    const error = await replayArchive({
      bucket: 'orders-archive',
      from: '2026-03-01',
      to: '2026-03-02',
      queueUrl: QUEUE,
      checkpointPath,
      s3: { send: async (command: unknown) => calls.push(command) },
      sqs: { send: async (command: unknown) => calls.push(command) },
      ...extra,
    } as ReplayArchiveOptions).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayOptionsError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(given);
    expect((error as Error).message).toContain('well-formed Unicode');
    expect(calls).toHaveLength(0);
    expect(existsSync(checkpointPath)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { replayArchive } from '../../shared/archive/replay.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { planReplay } from '../../shared/archive/replay-options.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill';
/** A client that records what it is sent: a refusal must come before the first call. */
const sent: unknown[] = [];
const client = { send: async (command: unknown) => sent.push(command) };
const valid = { bucket: 'orders-archive', from: '2026-03-01', queueUrl: QUEUE, s3: client, sqs: client };

async function refusal(changed: Record<string, unknown>): Promise<ReplayOptionsError> {
  const error = await replayArchive({ ...valid, ...changed } as Parameters<typeof replayArchive>[0]).then(
    () => new Error('the options were taken'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReplayOptionsError);
  expect(sent).toEqual([]);
  return error as ReplayOptionsError;
}

describe('replayArchive refuses its clients and run options before anything is read', () => {
  it.each([
    ['s3', undefined, 'got undefined; allowed: an S3Client'],
    ['sqs', {}, 'got an object without a send method; allowed: an SQSClient'],
    ['dryRun', 'yes', 'got "yes"; allowed: true (read and classify, send nothing) or false'],
    ['restart', 1, 'got 1; allowed: true (replace the checkpoint, send it all again) or false'],
    ['checkpointPath', ' ', 'got " "; allowed: a file path, or leave it out for no checkpoint'],
    ['checkpointPath', 42, 'got 42; allowed: a file path'],
    ['onProgress', 'bar', 'got "bar"; allowed: a function called after every batch, or leave it out'],
    ['signal', {}, "got an object that is no AbortSignal; allowed: an AbortSignal (an AbortController's signal), or leave it out"],
  ])('%s %j', async (field, value, words) => {
    const error = await refusal({ [field]: value });
    expect(error.field).toBe(field);
    expect(error.message).toContain(words);
  });

  it('takes booleans, a path, a function and a signal', () => {
    const plan = planReplay({
      ...valid,
      dryRun: false,
      restart: true,
      checkpointPath: 'backfill.checkpoint',
      onProgress: () => {},
      signal: new AbortController().signal,
    });
    expect(plan.parameters.queueUrl).toBe(QUEUE);
  });
});

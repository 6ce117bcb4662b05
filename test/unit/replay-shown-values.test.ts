import { describe, expect, it } from 'vitest';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { planReplay } from '../../shared/archive/replay-options.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill.fifo';

/** What planReplay threw for the base options with `extra` over them. */
function refusal(extra: Record<string, unknown>): unknown {
  try {
    planReplay({
      bucket: 'orders-archive',
      from: '2026-03-01',
      queueUrl: QUEUE,
      s3: { send: async () => ({}) },
      sqs: { send: async () => ({}) },
      ...extra,
    } as Parameters<typeof planReplay>[0]);
  } catch (error) {
    return error;
  }
  throw new Error('not refused');
}

describe('a replay shows a refused value as what was given (showValue), with its typed error', () => {
  it.each([
    ['from', { from: 20260301 }, 'got 20260301; allowed: '],
    ['to', { to: 5n }, 'got 5n; allowed: '],
    ['bucket', { bucket: 5n }, 'got 5n, which is not a string'],
    ['queueUrl', { queueUrl: 5n }, 'got 5n, which is not a string'],
    ['concurrency', { concurrency: Number.NaN }, 'got NaN; allowed: a whole number from 1 to'],
    ['holdBackMs', { holdBackMs: 60_000n }, 'got 60000n; allowed: a whole number from 0 to'],
    ['aggregateType', { aggregateType: 7n }, 'got 7n; allowed: '],
    ['aggregate', { aggregate: 7n }, 'got 7n; allowed: { type, id }'],
    ['types', { types: [Number.NaN] }, 'got [null]; allowed: '],
  ])('%s shows what was given', (field, extra, detail) => {
    const error = refusal(extra);
    expect(error).toBeInstanceOf(ReplayOptionsError);
    expect(error).toMatchObject({ field });
    expect((error as ReplayOptionsError).detail).toContain(detail);
  });
});

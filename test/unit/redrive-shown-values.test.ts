import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { checkDeadLetterFilter, type DeadLetterFilter } from '../../shared/redrive/dead-letter-filter.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';

/** What `run` threw. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('a redrive shows a refused value as what was given (showValue), never as JSON read back', () => {
  it.each([
    ['filter.reason', { reason: 5n }, 'got 5n; allowed: '],
    ['filter.aggregateType', { aggregateType: Number.NaN }, 'got NaN; allowed: a non-empty aggregate type'],
    ['filter.types', { types: 'order.placed' }, 'got "order.placed"; allowed: one or more non-empty event types'],
    ['filter.aggregate', { aggregate: 7n }, 'got 7n; allowed: { type, id }'],
    ['filter.since', { since: '2026-05-01' }, 'got "2026-05-01"; allowed: a valid Date'],
    ['filter.until', { until: new Date('not a date') }, 'got Invalid Date; allowed: a valid Date'],
  ])('%s shows what was given', (field, filter, detail) => {
    const error = thrown(() => checkDeadLetterFilter(filter as unknown as DeadLetterFilter));
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error).toMatchObject({ field });
    expect((error as RedriveOptionsError).detail).toContain(detail);
  });

  it.each([
    ['retry.maxAttempts', { maxAttempts: 5n, baseDelayMs: 200, maxDelayMs: 5000 }, 'got 5n; allowed: a whole number from 1 to 20'],
    ['retry.baseDelayMs', { maxAttempts: 4, baseDelayMs: '200', maxDelayMs: 5000 }, 'got "200"; allowed: milliseconds from 0 to 60000'],
  ])('redriveOnFailure %s shows what was given', async (field, retry, detail) => {
    const client = { send: async () => ({}) } as never;
    const error = await redriveOnFailure({
      source: { s3: client, bucket: 'relay-failures' },
      sns: client,
      streams: client,
      config: defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } }),
      topicArns: { orders: 'arn:aws:sns:us-east-1:123456789012:orders' },
      retry: retry as never,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error).toMatchObject({ field });
    expect((error as RedriveOptionsError).detail).toContain(detail);
  });
});

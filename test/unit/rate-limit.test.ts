import { describe, expect, it } from 'vitest';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { planReplay } from '../../shared/archive/replay-options.js';
import { RateLimiter, rateProblem } from '../../shared/rate-limit.js';

/*
 * One rule for a rate, whoever is given it: a finite number of at least one event per second.
 * The refusal shows what was given as it was given: NaN as NaN (JSON would say null), a string
 * quoted (unquoted, "0.5" would read as a number too slow, not as no number at all).
 */

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill.fifo';

function replayRefusal(ratePerSecond: unknown): ReplayOptionsError {
  try {
    planReplay({
      bucket: 'orders-archive',
      from: '2026-03-01',
      queueUrl: QUEUE,
      ratePerSecond,
      s3: { send: async () => ({}) },
      sqs: { send: async () => ({}) },
    } as unknown as Parameters<typeof planReplay>[0]);
  } catch (error) {
    if (error instanceof ReplayOptionsError) return error;
    throw error;
  }
  throw new Error(`ratePerSecond ${String(ratePerSecond)} was not refused`);
}

describe('rateProblem', () => {
  it.each([1, 2.5, 1000])('takes %s', (rate) => {
    expect(rateProblem(rate)).toBeUndefined();
  });

  it.each([
    [0.5, 'got 0.5;'],
    [0, 'got 0;'],
    [-3, 'got -3;'],
    [Number.NaN, 'got NaN;'],
    [Number.POSITIVE_INFINITY, 'got Infinity;'],
    ['5', 'got "5";'],
    [null, 'got null;'],
  ])('refuses %s, showing it as given', (rate, shown) => {
    expect(rateProblem(rate)).toBe(`${shown} allowed: at least 1 event per second`);
  });

  it('adds the reason a caller gives for the floor', () => {
    expect(rateProblem(0.5, 'slower, a batch would wait for minutes')).toBe(
      'got 0.5; allowed: at least 1 event per second (slower, a batch would wait for minutes)',
    );
    expect(rateProblem(2, 'unused')).toBeUndefined();
  });

  it('is what RateLimiter refuses, as a caller’s fault', () => {
    expect(() => new RateLimiter(Number.NaN)).toThrow(new RangeError('Invalid rate: got NaN; allowed: at least 1 event per second'));
    expect(() => new RateLimiter(1)).not.toThrow();
  });
});

describe('planReplay ratePerSecond', () => {
  it.each([
    [0.5, 'got 0.5'],
    [Number.NaN, 'got NaN'],
    [Number.NEGATIVE_INFINITY, 'got -Infinity'],
    ['5', 'got "5"'],
  ])('refuses %s with a ReplayOptionsError naming ratePerSecond and showing the value as given', (rate, shown) => {
    const error = replayRefusal(rate);
    expect(error.field).toBe('ratePerSecond');
    expect(error.message).toBe(`Invalid replay option ratePerSecond: ${shown}; allowed: at least 1 event per second`);
  });

  it('keeps a rate of at least 1 as given', () => {
    const plan = planReplay({
      bucket: 'orders-archive',
      from: '2026-03-01',
      queueUrl: QUEUE,
      ratePerSecond: 1.5,
      s3: { send: async () => ({}) },
      sqs: { send: async () => ({}) },
    } as unknown as Parameters<typeof planReplay>[0]);
    expect(plan.ratePerSecond).toBe(1.5);
  });
});

import { describe, expect, it } from 'vitest';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { progressBar, progressLine } from '../../shared/redrive/progress.js';
import { RateLimiter } from '../../shared/redrive/rate-limit.js';
import { formatSummary } from '../../shared/redrive/summary.js';

describe('RateLimiter', () => {
  it('spaces batches out to the rate', async () => {
    let clock = 0;
    const waits: number[] = [];
    const limiter = new RateLimiter(
      5,
      () => clock,
      async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    );
    await limiter.take(10);
    await limiter.take(10);
    await limiter.take(5);
    expect(waits).toEqual([2000, 2000]);
    expect(clock).toBe(4000);
  });

  it('rejects a rate that is not positive', () => {
    expect(() => new RateLimiter(0)).toThrow(RedriveOptionsError);
  });
});

describe('progress', () => {
  it('draws a bar on a TTY and nothing on a pipe', () => {
    const written: string[] = [];
    const tty = progressBar({ isTTY: true, write: (t) => written.push(t) > 0 });
    tty.update({ processed: 5, total: 10, moved: 4, failed: 1, skipped: 0 });
    tty.done();
    expect(written.join('')).toContain('5/10 moved 4 failed 1 skipped 0');
    const piped: string[] = [];
    const pipe = progressBar({ isTTY: false, write: (t) => piped.push(t) > 0 });
    pipe.update({ processed: 1, total: 1, moved: 1, failed: 0, skipped: 0 });
    pipe.done();
    expect(piped).toEqual([]);
  });

  it('fills the bar in proportion, and grows the total when producers add messages', () => {
    expect(progressLine({ processed: 15, total: 30, moved: 15, failed: 0, skipped: 0 })).toContain(`[${'#'.repeat(15)}${'-'.repeat(15)}]`);
    expect(progressLine({ processed: 40, total: 30, moved: 40, failed: 0, skipped: 0 })).toContain('40/40');
  });
});

describe('parseRedriveArgs', () => {
  it('parses each kind with the common options', () => {
    expect(
      parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', 'q', '--to', 's', '--dry-run', '--rate', '20', '--max', '100']),
    ).toEqual({
      kind: 'queue-dlq',
      queueUrl: 'q',
      targetQueueUrl: 's',
      dryRun: true,
      ratePerSecond: 20,
      maxMessages: 100,
    });
    expect(parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', 'q'], { OUTBOX_TOPIC_ARNS: '{"payments":"arn:p"}' })).toMatchObject({
      kind: 'relay-dlq',
      topicArns: { payments: 'arn:p' },
    });
    expect(parseRedriveArgs(['redrive', 'on-failure', '--bucket', 'b', '--prefix', 'p/', '--topic-arns', '{"a":"arn:a"}'])).toMatchObject({
      kind: 'on-failure',
      source: { bucket: 'b', prefix: 'p/' },
    });
  });

  it('rejects missing, misplaced and malformed options, naming the flag', () => {
    const fails = (args: string[], pattern: RegExp) => expect(() => parseRedriveArgs(args, {})).toThrow(pattern);
    fails(['redrive', 'queue-dlq', '--queue-url', 'q'], /--to: is required for queue-dlq/);
    fails(['redrive', 'relay-dlq', '--queue-url', 'q'], /--topic-arns: is required/);
    fails(['redrive', 'relay-dlq', '--queue-url', 'q', '--topic-arns', '[1]'], /allowed: an object of topic name/);
    fails(['redrive', 'queue-dlq', '--queue-url', 'q', '--to', 's', '--bucket', 'b'], /--bucket: does not apply to queue-dlq/);
    fails(['redrive', 'on-failure', '--topic-arns', '{}'], /give exactly one/);
    fails(['redrive', 'queue-dlq', '--queue-url', 'q', '--to', 's', '--rate', '0'], /--rate: got "0"/);
    fails(['redrive', 'teleport'], /allowed: relay-dlq, queue-dlq, on-failure/);
    fails(['redrive', 'queue-dlq', '--colour'], /Unknown option '--colour'/);
  });
});

describe('formatSummary', () => {
  it('lists counts and every message left behind with its reason', () => {
    const text = formatSummary({
      status: 'completed',
      source: 'dlq',
      target: 'topic',
      before: 5,
      after: 2,
      processed: 5,
      moved: 3,
      republished: 3,
      failed: [{ id: 'm-4', reason: 'InvalidParameter: too big' }],
      skipped: [{ id: 'm-5', reason: 'no envelope' }],
    });
    expect(text).toMatch(/before:\s+5/);
    expect(text).toMatch(/after:\s+2/);
    expect(text).toContain('failed  m-4: InvalidParameter: too big');
    expect(text).toContain('skipped m-5: no envelope');
  });
});

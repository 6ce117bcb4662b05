import type { PublishBatchCommandOutput, PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../shared/rate-limit.js';
import { inAggregateOrder } from '../../shared/redrive/aggregate-order.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { progressBar, progressLine } from '../../shared/redrive/progress.js';
import { type BlockedAggregates, publishEvents, type RepublishEvent } from '../../shared/redrive/publish-events.js';
import { redriveQueueDlq, sendBatches } from '../../shared/redrive/queue-dlq.js';
import { formatSummary } from '../../shared/redrive/summary.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { scriptedQueue } from '../helpers/scripted-queue.js';

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
    expect(() => new RateLimiter(0)).toThrow(RangeError);
  });

  it('is refused by a redrive with a RedriveOptionsError naming ratePerSecond, before anything is read', async () => {
    const { sqs } = scriptedQueue([], async () => {
      throw new Error('nothing may be sent');
    });
    const reads: unknown[] = [];
    const watched = {
      send: (command: unknown) => {
        reads.push(command);
        return sqs.send(command as never);
      },
    } as unknown as typeof sqs;
    const error = await redriveQueueDlq({
      sqs: watched,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq',
      targetQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
      ratePerSecond: 0,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error).toMatchObject({
      field: 'ratePerSecond',
      message: expect.stringContaining('got 0; allowed: at least 1 event per second (slower, one batch would hold its messages for hours)'),
    });
    expect(reads).toEqual([]);
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
  const Q = 'https://sqs.eu-west-1.amazonaws.com/123456789012/q-dlq';
  const S = 'https://sqs.eu-west-1.amazonaws.com/123456789012/q';

  it('parses each kind with the common options', () => {
    expect(parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', Q, '--to', S, '--dry-run', '--rate', '20', '--max', '100'])).toEqual({
      kind: 'queue-dlq',
      queueUrl: Q,
      targetQueueUrl: S,
      dryRun: true,
      ratePerSecond: 20,
      maxMessages: 100,
    });
    expect(
      parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', Q], {
        OUTBOX_TOPIC_ARNS: '{"payments":"arn:aws:sns:eu-west-1:123456789012:payments"}',
      }),
    ).toMatchObject({
      kind: 'relay-dlq',
      topicArns: { payments: 'arn:aws:sns:eu-west-1:123456789012:payments' },
    });
    expect(
      parseRedriveArgs([
        'redrive',
        'on-failure',
        '--bucket',
        'relay-failures',
        '--prefix',
        'p/',
        '--topic-arns',
        '{"a":"arn:aws:sns:eu-west-1:123456789012:a"}',
      ]),
    ).toMatchObject({
      kind: 'on-failure',
      source: { bucket: 'relay-failures', prefix: 'p/' },
    });
  });

  it('rejects missing, misplaced and malformed options, naming the flag', () => {
    const fails = (args: string[], pattern: RegExp) => expect(() => parseRedriveArgs(args, {})).toThrow(pattern);
    fails(['redrive', 'queue-dlq', '--queue-url', Q], /--to: is required for queue-dlq/);
    fails(['redrive', 'relay-dlq', '--queue-url', Q], /--topic-arns: is required/);
    fails(['redrive', 'relay-dlq', '--queue-url', Q, '--topic-arns', '[1]'], /allowed: an object of topic name/);
    fails(['redrive', 'queue-dlq', '--queue-url', Q, '--to', S, '--bucket', 'b'], /--bucket: does not apply to queue-dlq/);
    fails(['redrive', 'on-failure', '--topic-arns', '{}'], /--queue-url\/--bucket: neither given; allowed: exactly one/);
    fails(['redrive', 'queue-dlq', '--queue-url', Q, '--to', S, '--rate', '0'], /--rate: got "0"/);
    fails(['redrive', 'teleport'], /allowed: relay-dlq, queue-dlq, on-failure/);
    fails(['redrive', 'queue-dlq', '--colour'], /^Unknown redrive option: got "--colour"; allowed: --queue-url URL/);
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

  it('counts the events moved in words that agree with the count (one was "1 (1 events)")', () => {
    const summary = {
      status: 'dry-run',
      source: 'dlq',
      target: 'queue',
      before: 1,
      after: 1,
      processed: 1,
      failed: [],
      skipped: [],
    } as const;
    expect(formatSummary({ ...summary, moved: 1, republished: 1 })).toContain('  would move   1 (1 event)\n');
    expect(formatSummary({ ...summary, moved: 2, republished: 3 })).toContain('  would move   2 (3 events)\n');
  });
});

describe('publishEvents', () => {
  const event = (key: string, aggregateId: string): RepublishEvent => ({
    key,
    body: `{"id":"${key}"}`,
    eventId: `id-${key}`,
    type: 'order.placed',
    aggregateType: 'order',
    aggregateId,
  });

  /** An SNS that records each request's messages and answers it with `answer`. */
  const recordingSns = (answer: (entries: PublishBatchRequestEntry[]) => Omit<PublishBatchCommandOutput, '$metadata'>) => {
    const requests: string[][] = [];
    const sns: PublishBatchClient = {
      send: async (command) => {
        const entries = command.input.PublishBatchRequestEntries ?? [];
        requests.push(entries.map((e) => e.Message ?? ''));
        return { ...answer(entries), $metadata: {} } as PublishBatchCommandOutput;
      },
    };
    return { sns, requests };
  };

  /** Publishes a1, b1, a2 (a1 and a2 of one aggregate) with quick retries, `maxAttempts` in all. */
  const publishA1B1A2 = (sns: PublishBatchClient, maxAttempts: number) =>
    publishEvents(sns, 'arn:aws:sns:us-east-1:0:orders', [event('a1', 'A'), event('b1', 'B'), event('a2', 'A')], new Map(), {
      retry: { maxAttempts, baseDelayMs: 1, maxDelayMs: 2 },
    });

  it('fails an entry SNS gave no result for, and holds its aggregate back in later calls of the run', async () => {
    const requests: string[][] = [];
    const sns = {
      send: async (command: { input: { PublishBatchRequestEntries?: { Message?: string }[] } }): Promise<PublishBatchCommandOutput> => {
        const entries = command.input.PublishBatchRequestEntries ?? [];
        requests.push(entries.map((e) => e.Message ?? ''));
        // The first request answers for its second entry only.
        return requests.length === 1
          ? { Successful: [{ Id: '1', MessageId: 'm' }], Failed: [], $metadata: {} }
          : { Successful: entries.map((_, i) => ({ Id: String(i), MessageId: 'm' })), Failed: [], $metadata: {} };
      },
    };
    const blocked: BlockedAggregates = new Map();

    const first = await publishEvents(sns, 'arn:aws:sns:us-east-1:0:orders', [event('a1', 'A'), event('b1', 'B')], blocked);
    const second = await publishEvents(sns, 'arn:aws:sns:us-east-1:0:orders', [event('a2', 'A'), event('b2', 'B')], blocked);

    expect([...first.failed]).toEqual([['a1', 'SNS returned no result for the entry']]);
    expect([...first.succeeded]).toEqual(['b1']);
    expect([...second.failed]).toEqual([['a2', 'not published: earlier event id-a1 of aggregate order#A failed']]);
    expect([...second.succeeded]).toEqual(['b2']);
    expect(requests).toHaveLength(2);
    expect(requests[1]).toEqual(['{"id":"b2"}']);
  });

  it('sends an aggregate’s next event only once its previous one is published, so SNS refusing the first cannot leave the second ahead', async () => {
    const requests: string[][] = [];
    const sns = {
      send: async (command: { input: { PublishBatchRequestEntries?: { Message?: string }[] } }): Promise<PublishBatchCommandOutput> => {
        const entries = command.input.PublishBatchRequestEntries ?? [];
        requests.push(entries.map((e) => e.Message ?? ''));
        // SNS refuses a1 and accepts everything else, entry by entry.
        const refused = entries.flatMap((e, i) => (e.Message === '{"id":"a1"}' ? [String(i)] : []));
        return {
          Successful: entries.flatMap((_, i) => (refused.includes(String(i)) ? [] : [{ Id: String(i), MessageId: 'm' }])),
          Failed: refused.map((Id) => ({ Id, Code: 'InternalError', SenderFault: false })),
          $metadata: {},
        };
      },
    };

    const result = await publishA1B1A2(sns, 2);

    // a1 is sent again (a server error may pass) before anything else; refused again, a2 waits behind it.
    expect(requests).toEqual([['{"id":"a1"}', '{"id":"b1"}'], ['{"id":"a1"}']]);
    expect([...result.succeeded]).toEqual(['b1']);
    expect(result.failed.get('a1')).toBe('InternalError: publish failed');
    expect(result.failed.get('a2')).toBe('not published: earlier event id-a1 of aggregate order#A failed');
  });

  it('stops waiting to send a throttled entry again when the run is stopped: the entry fails, and nothing more goes out', async () => {
    const stop = new AbortController();
    const { sns, requests } = recordingSns((entries) => {
      // Ctrl-C while SNS throttles: the abort comes with the answer.
      stop.abort();
      return { Successful: [], Failed: entries.map((e) => ({ Id: e.Id, Code: 'Throttled', SenderFault: false })) };
    });

    // A retry an hour away: only the abort can end the wait.
    const result = await publishEvents(sns, 'arn:aws:sns:us-east-1:0:orders', [event('a1', 'A'), event('a2', 'A')], new Map(), {
      retry: { maxAttempts: 4, baseDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      signal: stop.signal,
    });

    expect(requests).toEqual([['{"id":"a1"}']]);
    expect(result.succeeded.size).toBe(0);
    expect(result.failed.get('a1')).toBe('not sent again: the run was stopped while it waited to retry');
    expect(result.failed.get('a2')).toBe('not published: earlier event id-a1 of aggregate order#A failed');
  });

  it('sends an entry SNS throttled again after a backoff, before the next request, and a refused one never again', async () => {
    let throttled = false;
    const { sns, requests } = recordingSns((entries) => {
      const failedOnce = (e: { Message?: string }) => e.Message === '{"id":"a1"}' && !throttled;
      const refused = (e: { Message?: string }) => e.Message === '{"id":"b1"}';
      const answer = {
        Successful: entries.filter((e) => !failedOnce(e) && !refused(e)).map((e) => ({ Id: e.Id, MessageId: 'm' })),
        Failed: [
          ...entries.filter(failedOnce).map((e) => ({ Id: e.Id, Code: 'Throttled', SenderFault: false })),
          ...entries.filter(refused).map((e) => ({ Id: e.Id, Code: 'InvalidParameter', SenderFault: true })),
        ],
      };
      if (entries.some(failedOnce)) throttled = true;
      return answer;
    });

    const result = await publishA1B1A2(sns, 4);

    expect(requests).toEqual([['{"id":"a1"}', '{"id":"b1"}'], ['{"id":"a1"}'], ['{"id":"a2"}']]);
    expect([...result.succeeded].sort()).toEqual(['a1', 'a2']);
    expect([...result.failed]).toEqual([['b1', 'InvalidParameter: publish failed']]);
  });
});

describe('redriveQueueDlq sends', () => {
  it('sends no later message of a group whose message failed in the run, so none overtakes it', async () => {
    const message = (id: string, body: string): Message => ({
      MessageId: id,
      ReceiptHandle: `r-${id}`,
      Body: body,
      Attributes: { MessageGroupId: 'order#G' },
    });
    // One receive of three messages of one group; the first is too large to share a send with the others.
    const { sqs, sent } = scriptedQueue([[message('g1', 'x'.repeat(300_000)), message('g2', 'two'), message('g3', 'three')]], async () => {
      throw new Error('ServiceUnavailable');
    });

    const summary = await redriveQueueDlq({
      sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq.fifo',
      targetQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q.fifo',
    });

    expect(sent.map((entries) => entries.map((e) => e.MessageBody?.slice(0, 5)))).toEqual([['xxxxx']]);
    expect(summary).toMatchObject({ processed: 3, moved: 0 });
    expect(summary.failed).toEqual([
      { id: 'g1', reason: 'SendMessageBatch failed: ServiceUnavailable' },
      { id: 'g2', reason: 'not sent: earlier message g1 of group order#G failed' },
      { id: 'g3', reason: 'not sent: earlier message g1 of group order#G failed' },
    ]);
  });

  it('fails a message SQS gave no result for, and keeps it', async () => {
    const { sqs } = scriptedQueue([[{ MessageId: 'm1', ReceiptHandle: 'r-m1', Body: 'one' }]], async () => ({
      Successful: [],
      Failed: [],
    }));

    const summary = await redriveQueueDlq({
      sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq',
      targetQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
    });

    expect(summary).toMatchObject({ processed: 1, moved: 0, failed: [{ id: 'm1', reason: 'SQS returned no result for the message' }] });
  });
});

describe('redriveQueueDlq into a FIFO queue', () => {
  // fauxqs hands out one message per FIFO group per receive, so it cannot show several messages of
  // a group in one receive; this in-memory queue does, as SQS does (up to 10 of a group at once).
  it('sends at most one message of a group per SendMessageBatch, so a refused message cannot be overtaken by the next of its group', async () => {
    const message = (id: string, group: string): Message => ({
      MessageId: id,
      ReceiptHandle: `r-${id}`,
      Body: id,
      Attributes: { MessageGroupId: group },
    });
    // SQS answers entry by entry: it refuses g1 and accepts every other entry.
    const { sqs, sent } = scriptedQueue(
      [[message('g1', 'G'), message('g2', 'G'), message('h1', 'H'), message('g3', 'G')]],
      async (entries) => ({
        Successful: entries.filter((e) => e.MessageBody !== 'g1').map((e) => ({ Id: e.Id, MessageId: 'x', MD5OfMessageBody: '' })),
        Failed: entries.filter((e) => e.MessageBody === 'g1').map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
      }),
    );

    const summary = await redriveQueueDlq({
      sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq.fifo',
      targetQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q.fifo',
    });

    expect(sent.map((entries) => entries.map((e) => e.MessageBody))).toEqual([['g1', 'h1']]);
    expect(summary).toMatchObject({ processed: 4, moved: 1 });
    expect(summary.failed).toEqual([
      { id: 'g1', reason: 'InternalError: send failed' },
      { id: 'g2', reason: 'not sent: earlier message g1 of group G failed' },
      { id: 'g3', reason: 'not sent: earlier message g1 of group G failed' },
    ]);
  });

  it('fills a batch with other groups, keeping each group in order', () => {
    const entry = (id: string, groupId: string) => ({ messageId: id, item: { body: id, groupId } });
    const batches = sendBatches(
      [entry('a1', 'A'), entry('a2', 'A'), entry('b1', 'B'), entry('a3', 'A'), entry('b2', 'B'), entry('c1', 'C')],
      true,
    );
    expect(batches.map((b) => b.map((e) => e.messageId))).toEqual([['a1', 'b1', 'c1'], ['a2', 'b2'], ['a3']]);
    // A standard queue has no groups: one batch.
    expect(sendBatches([entry('a1', 'A'), entry('a2', 'A')], false)).toHaveLength(1);
  });
});

describe('inAggregateOrder', () => {
  const at = (aggregate: string, sequence: number, sequenceEpoch = '2026-01-01T00:00:00.000Z') => ({ aggregate, sequence, sequenceEpoch });

  it('puts each aggregate’s events in (sequenceepoch, sequence) order, in rounds across aggregates', () => {
    const items = [at('A', 3), at('B', 1), at('A', 1), at('A', 2, '2025-06-01T00:00:00.000Z'), at('B', 2)];
    expect(inAggregateOrder(items, (i) => i).map((i) => `${i.aggregate}${i.sequence}`)).toEqual(['A2', 'B1', 'A1', 'B2', 'A3']);
  });
});

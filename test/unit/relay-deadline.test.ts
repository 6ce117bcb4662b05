import { Logger } from '@aws-lambda-powertools/logger';
import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_TIMEOUTS } from '../../shared/aws/client-timeouts.js';
import { defineConfig } from '../../shared/config.js';
import { createRelayHandler, MAX_RESERVE_MS, MIN_RESERVE_MS, relayDeadline } from '../../shared/relay/handler.js';
import {
  type DeadLetterClient,
  lowestFailedSequenceNumber,
  type PublishBatchClient,
  RELAY_METRICS,
  Relay,
  relayMetrics,
} from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { captureEmf } from '../helpers/metrics.js';
import { config, deadLetterQueueUrl, relayWith, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

/** A record whose slot is malformed (its `seq` is no number): the relay dead-letters it. */
function malformedRecord(sequenceNumber: string) {
  const record = slotRecord({ id: 'm', sequenceNumber });
  record.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
  return record;
}

/** A relay DLQ that throttles every send, counting them; `afterFirst` runs once the first has been refused. */
function throttledDlq(afterFirst?: () => void) {
  const dlq = {
    sends: 0,
    send: async () => {
      if (++dlq.sends === 1 && afterFirst !== undefined) queueMicrotask(afterFirst);
      throw Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    },
  };
  return dlq;
}

/** A relay whose every wait before a retry is exactly `waitMs`: full jitter draws its longest. */
function relayWaiting(waitMs: number, clients: { sns?: PublishBatchClient; sqs?: DeadLetterClient } = {}): Relay {
  vi.spyOn(Math, 'random').mockReturnValue(0.999);
  return new Relay({
    config,
    sns: clients.sns ?? new FakeSns(),
    sqs: clients.sqs ?? new FakeSqs(),
    topicArns,
    deadLetterQueueUrl,
    backoff: { baseDelayMs: waitMs, maxDelayMs: waitMs },
  });
}

describe('relay deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('sends nothing once the deadline passes: requests in flight finish, every record not delivered fails and is retried', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const fake = new FakeSns();
    let calls = 0;
    // The clock passes the deadline while the second request of the first wave of four goes out:
    // the third and fourth are not sent (the deadline is asked before each request, not once per wave).
    const sns = {
      send: (command: PublishBatchCommand) => {
        if (++calls === 2) vi.setSystemTime(Date.now() + 10_000);
        return fake.send(command);
      },
    };
    const records = Array.from({ length: 100 }, (_, i) => slotRecord({ id: `o-${i}`, sequenceNumber: String(5_000 + i) }));
    const result = await new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl }).relay(records, {
      deadline: Date.now() + 5_000,
    });
    expect(calls).toBe(2);
    expect(result.published).toBe(20);
    expect(result.outcomes.slice(0, 20).every((o) => o.status === 'delivered')).toBe(true);
    expect(result.outcomes.slice(20).every((o) => o.status === 'failed' && o.reason === 'DEADLINE_REACHED')).toBe(true);
    expect(lowestFailedSequenceNumber(result)).toBe('5020');
  });

  it('aborts a request still in flight when the signal fires, and fails its record for the retry', async () => {
    // An SNS that never answers: only the abort ends the request.
    const hanging = {
      send: (_command: PublishBatchCommand, options?: { abortSignal?: AbortSignal }) =>
        new Promise<never>((_, reject) =>
          options?.abortSignal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))),
        ),
    };
    const relay = new Relay({ config, sns: hanging, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl });
    const result = await relay.relay([slotRecord({ id: 'o-1', sequenceNumber: '6100' })], {
      deadline: Date.now() + 20,
      signal: AbortSignal.timeout(60),
    });
    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    expect(lowestFailedSequenceNumber(result)).toBe('6100');
  });

  it('ends a dead letter’s wait before its retry when the signal fires, and fails its record for the retry', async () => {
    const malformed = malformedRecord('7100');
    const invocationEnd = new AbortController();
    // A throttled DLQ; the invocation's end comes right after the first attempt, during the wait before the retry.
    const dlq = throttledDlq(() => invocationEnd.abort());
    // A minute before the retry, which only the abort can end within the test's timeout.
    const relay = relayWaiting(60_000, { sqs: dlq });

    const result = await relay.relay([malformed], { signal: invocationEnd.signal });

    // The invocation's end cut it short, not a DLQ refusal: DEADLINE_REACHED, as docs/relay.md says.
    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    expect((result.outcomes[0] as { detail: string }).detail).toMatch(/^sending the dead letter was cut short/);
    expect(lowestFailedSequenceNumber(result)).toBe('7100');
    expect(dlq.sends).toBe(1);
  });

  it('stops waiting for a lane in backoff at the deadline, and dead-letters nothing after it', async () => {
    const sqs = new FakeSqs();
    const malformed = malformedRecord('7000');
    // A minute before the retry, far past the deadline.
    const slow = relayWaiting(60_000, { sns: new FakeSns(() => 'transient'), sqs });
    const backedOff = await slow.relay([slotRecord({ id: 'o-1', sequenceNumber: '6000' })], { deadline: Date.now() + 50 });
    expect(backedOff.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    // The retry was due after the deadline and never went out: no retry is counted.
    expect(backedOff.retried).toBe(0);

    const late = await slow.relay([malformed], { deadline: Date.now() - 1 });
    expect(late.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    expect(sqs.bodies).toEqual([]);
  });
});

describe('relay deadline: a request cut short on its last attempt', () => {
  it('fails its record with DEADLINE_REACHED, not as a publish that kept failing, and counts no retry', async () => {
    const cut = new AbortController();
    // SNS never answers; the signal ends the request, as the invocation's end does.
    const sns: PublishBatchClient = {
      send: (_command, options) =>
        new Promise((_, reject) => {
          options?.abortSignal?.addEventListener(
            'abort',
            () => reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })),
            {
              once: true,
            },
          );
          queueMicrotask(() => cut.abort(new Error('the invocation is about to time out')));
        }),
    };
    const oneAttempt = defineConfig({ ...config, relay: { ...config.relay, maxPublishAttempts: 1 } });
    const relay = new Relay({ config: oneAttempt, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl });

    const result = await relay.relay([slotRecord({ id: 'o-cut', sequenceNumber: '8100' })], { signal: cut.signal });

    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    expect((result.outcomes[0] as { detail: string }).detail).toMatch(/was cut short \(Error: the invocation is about to time out\)/);
    expect(result.retried).toBe(0);
  });
});

describe('relay deadline: dead letters', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('does not dead-letter an entry SNS rejects in an answer that comes after the deadline: the record fails for the retry', async () => {
    const sqs = new FakeSqs();
    const rejecting = new FakeSns(() => 'permanent');
    // SNS answers after the deadline: the clock passes it while the request is out.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const late = {
      send: (command: PublishBatchCommand) => {
        vi.setSystemTime(Date.now() + 10_000);
        return rejecting.send(command);
      },
    };
    const relay = new Relay({ config, sns: late, sqs, topicArns, deadLetterQueueUrl });
    const result = await relay.relay([slotRecord({ id: 'o-1', sequenceNumber: '8000' })], { deadline: Date.now() + 5_000 });
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: expect.stringContaining('rejected event'),
    });
    expect(sqs.bodies).toEqual([]);
    expect(rejecting.requests).toHaveLength(1);

    // Without a deadline the same refusal is dead-lettered at once.
    const onTime = await relay.relay([slotRecord({ id: 'o-1', sequenceNumber: '8000' })]);
    expect(onTime.outcomes[0]).toMatchObject({ status: 'delivered', deadLettered: 1 });
    expect(sqs.bodies).toHaveLength(1);
  });

  it('makes no retry of a throttled dead letter once the deadline has passed when its wait ends (a timer run late)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    // The retry is due 100 ms on, within the deadline 5 s away; once its wait has begun (the
    // microtasks after the refusal have run), the clock passes the deadline, as when a blocked event
    // loop runs the timer late.
    const dlq = throttledDlq(() => setImmediate(() => vi.setSystemTime(Date.now() + 10_000)));
    const relay = relayWaiting(100, { sqs: dlq });
    const result = await relay.relay([malformedRecord('8200')], { deadline: Date.now() + 5_000 });
    expect(dlq.sends).toBe(1);
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: expect.stringContaining('the retry of the dead letter was due after the deadline: ThrottlingException'),
    });
  });

  it('makes no retry of a throttled dead letter that would be due after the deadline', async () => {
    const malformed = malformedRecord('8100');
    const dlq = throttledDlq();
    // A minute before the retry, past the deadline 5 s away (far enough that a loaded machine still sends the first attempt).
    const relay = relayWaiting(60_000, { sqs: dlq });
    const result = await relay.relay([malformed], { deadline: Date.now() + 5_000 });
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: expect.stringContaining('the retry of the dead letter was due after the deadline: ThrottlingException'),
    });
    expect(dlq.sends).toBe(1);
  });
});

describe('relay handler deadline', () => {
  it('keeps a fifth of the invocation’s remaining time, at least 2 s, for the requests in flight and the answer', () => {
    expect(relayDeadline(1_000, 60_000)).toBe(49_000);
    expect(relayDeadline(0, 5_000)).toBe(3_000);
    // Never more than half: a function with a timeout of two seconds still publishes for one.
    expect(relayDeadline(0, 2_000)).toBe(1_000);
  });

  it('keeps at most 30 s, what the requests in flight at the deadline can take, however long the function runs', () => {
    expect(MAX_RESERVE_MS).toBe(30_000);
    // The longest one attempt of a request of the relay's clients (a dead letter: 3 s to connect, 25 s for the answer) fits, with the floor to answer.
    const attempt = ({ connectionTimeout, requestTimeout }: { connectionTimeout: number; requestTimeout: number }) =>
      connectionTimeout + requestTimeout;
    expect(MAX_RESERVE_MS).toBe(Math.max(attempt(CLIENT_TIMEOUTS.sns), attempt(CLIENT_TIMEOUTS.sqs)) + MIN_RESERVE_MS);
    // A PublishBatch through all of the SDK's three attempts fits too.
    expect(MAX_RESERVE_MS).toBeGreaterThan(3 * attempt(CLIENT_TIMEOUTS.sns));
    // A fifth up to a function of 150 s; 30 s beyond: a 900 s function publishes for 870 s, not 720 s.
    expect(relayDeadline(0, 150_000)).toBe(120_000);
    expect(relayDeadline(0, 300_000)).toBe(270_000);
    expect(relayDeadline(0, 900_000)).toBe(870_000);
  });

  it('hands the relay that deadline, from the invocation’s remaining time', async () => {
    const relay = relayWith(new FakeSns());
    const relayed = vi.spyOn(relay, 'relay');
    const handler = createRelayHandler({ relay, logger: new Logger({ logLevel: 'SILENT' }), metrics: relayMetrics('deadline-relay') });
    const before = Date.now();
    await handler({ Records: [slotRecord({ id: 'a', sequenceNumber: '400' })] }, { getRemainingTimeInMillis: () => 900_000 });
    const deadline = relayed.mock.calls[0]![1]!.deadline!;
    expect(deadline).toBeGreaterThanOrEqual(before + 870_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 870_000);
  });

  it('reports every record failed from the first when the invocation has no time left to publish', async () => {
    const sns = new FakeSns();
    const metrics = relayMetrics('deadline-relay');
    const written = captureEmf(metrics);
    const handler = createRelayHandler({ relay: relayWith(sns), logger: new Logger({ logLevel: 'SILENT' }), metrics });
    const records = [slotRecord({ id: 'a', sequenceNumber: '300' }), slotRecord({ id: 'b', sequenceNumber: '301' })];
    const response = await handler({ Records: records }, { getRemainingTimeInMillis: () => 0 });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: '300' }]);
    expect(sns.requests).toEqual([]);
    // A short invocation (a function timeout of a second or two) still gets half its time to publish.
    expect((await handler({ Records: records }, { getRemainingTimeInMillis: () => 1_500 })).batchItemFailures).toEqual([]);
    expect(sns.accepted).toHaveLength(2);
    // The batch lines; the second invocation's published records add their aggregate type's lag line, the first's none.
    const batchLines = written.filter((emf) => !(RELAY_METRICS.aggregateTypeDimension in emf));
    expect(batchLines.map((emf) => emf[RELAY_METRICS.failedRecords])).toEqual([2, 0]);
    expect(written.map((emf) => emf[RELAY_METRICS.aggregateTypeDimension])).toEqual([undefined, undefined, 'order']);
  });
});

describe('relay signal', () => {
  afterEach(() => vi.restoreAllMocks());

  it('ends the run at once when the signal fires, with no deadline: nothing more is sent, and every record not delivered fails', async () => {
    const sns = new FakeSns(() => 'transient');
    // A minute before the retry, which only the abort cuts short.
    const relay = relayWaiting(60_000, { sns });
    const cut = new AbortController();
    const running = relay.relay([slotRecord({ id: 'o-1', sequenceNumber: '9000' })], { signal: cut.signal });
    await vi.waitFor(() => expect(sns.requests).toHaveLength(1));
    cut.abort(new Error('the worker is handing its leases over'));

    const result = await running;
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: expect.stringContaining('publishing was cut short (Error: the worker is handing its leases over)'),
    });
    expect(sns.requests).toHaveLength(1);
  });
});

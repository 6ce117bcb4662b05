import { Logger } from '@aws-lambda-powertools/logger';
import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRelayHandler, relayDeadline } from '../../functions/relay/create-handler.js';
import { lowestFailedSequenceNumber, RELAY_METRICS, Relay, relayMetrics } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { captureEmf } from '../helpers/metrics.js';
import { config, deadLetterQueueUrl, relayWith, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

describe('relay deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('sends nothing once the deadline passes: requests in flight finish, every record not delivered fails and is retried', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const fake = new FakeSns();
    let calls = 0;
    // The clock passes the deadline while the first wave of four requests goes out.
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
    expect(calls).toBe(4);
    expect(result.published).toBe(40);
    expect(result.outcomes.slice(0, 40).every((o) => o.status === 'delivered')).toBe(true);
    expect(result.outcomes.slice(40).every((o) => o.status === 'failed' && o.reason === 'DEADLINE_REACHED')).toBe(true);
    expect(lowestFailedSequenceNumber(result)).toBe('5040');
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
    const malformed = slotRecord({ id: 'm', sequenceNumber: '7100' });
    malformed.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
    const invocationEnd = new AbortController();
    let sends = 0;
    // A throttled DLQ; the invocation's end comes right after the first attempt, during the wait before the retry.
    const throttled = {
      send: async () => {
        if (++sends === 1) queueMicrotask(() => invocationEnd.abort());
        throw Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
      },
    };
    // Full jitter draws the longest wait: a minute before the retry, which only the abort can end
    // within the test's timeout.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const relay = new Relay({
      config,
      sns: new FakeSns(),
      sqs: throttled,
      topicArns,
      deadLetterQueueUrl,
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });

    const result = await relay.relay([malformed], { signal: invocationEnd.signal });

    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEAD_LETTER_FAILED' });
    expect(lowestFailedSequenceNumber(result)).toBe('7100');
    expect(sends).toBe(1);
  });

  it('stops waiting for a lane in backoff at the deadline, and dead-letters nothing after it', async () => {
    const sqs = new FakeSqs();
    const malformed = slotRecord({ id: 'm', sequenceNumber: '7000' });
    malformed.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
    const slow = new Relay({
      config,
      sns: new FakeSns(() => 'transient'),
      sqs,
      topicArns,
      deadLetterQueueUrl,
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    // Full jitter draws the longest wait: a minute before the retry, far past the deadline.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const backedOff = await slow.relay([slotRecord({ id: 'o-1', sequenceNumber: '6000' })], { deadline: Date.now() + 50 });
    expect(backedOff.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    expect(backedOff.retried).toBe(1);

    const late = await slow.relay([malformed], { deadline: Date.now() - 1 });
    expect(late.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
    expect(sqs.bodies).toEqual([]);
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

  it('makes no retry of a throttled dead letter that would be due after the deadline', async () => {
    const malformed = slotRecord({ id: 'm', sequenceNumber: '8100' });
    malformed.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
    let sends = 0;
    const throttled = {
      send: async () => {
        sends++;
        throw Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
      },
    };
    // Full jitter draws the longest wait: a second, past the deadline 100 ms away.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const relay = new Relay({
      config,
      sns: new FakeSns(),
      sqs: throttled,
      topicArns,
      deadLetterQueueUrl,
      backoff: { baseDelayMs: 1_000, maxDelayMs: 1_000 },
    });
    const result = await relay.relay([malformed], { deadline: Date.now() + 100 });
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: expect.stringContaining('the retry of the dead letter was due after the deadline: ThrottlingException'),
    });
    expect(sends).toBe(1);
  });
});

describe('relay handler deadline', () => {
  it('keeps a fifth of the invocation’s remaining time, at least 2 s, for the requests in flight and the answer', () => {
    expect(relayDeadline(1_000, 60_000)).toBe(49_000);
    expect(relayDeadline(0, 5_000)).toBe(3_000);
    // Never more than half: a function with a timeout of two seconds still publishes for one.
    expect(relayDeadline(0, 2_000)).toBe(1_000);
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
    expect(written.map((emf) => emf[RELAY_METRICS.failedRecords])).toEqual([2, 0]);
  });
});

describe('relay signal', () => {
  afterEach(() => vi.restoreAllMocks());

  it('ends the run at once when the signal fires, with no deadline: nothing more is sent, and every record not delivered fails', async () => {
    const sns = new FakeSns(() => 'transient');
    const relay = new Relay({
      config,
      sns,
      sqs: new FakeSqs(),
      topicArns,
      deadLetterQueueUrl,
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    // Full jitter draws the longest wait: a minute before the retry, which only the abort cuts short.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
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

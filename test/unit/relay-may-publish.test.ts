import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lowestFailedSequenceNumber, Relay } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

const relayOn = (sns: FakeSns | { send: FakeSns['send'] }, sqs: FakeSqs | { send: FakeSqs['send'] } = new FakeSqs()) =>
  new Relay({ config, sns, sqs, topicArns, deadLetterQueueUrl, backoff: { baseDelayMs: 1, maxDelayMs: 1 } });

/** A record whose slot is malformed (its `seq` is no number): the relay dead-letters it. */
function malformedRecord(sequenceNumber: string) {
  const record = slotRecord({ id: 'm', sequenceNumber });
  record.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
  return record;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('relay mayPublish()', () => {
  it('sends no request once it refuses, even the next event of an aggregate whose answer just came, and fails the records not delivered', async () => {
    const sns = new FakeSns();
    let allowed = true;
    // The answer to the first request comes once sending is no longer allowed; no timer runs in between.
    const refusingAfterFirst = {
      send: async (command: PublishBatchCommand) => {
        const output = await sns.send(command);
        allowed = false;
        return output;
      },
    };
    const records = [
      slotRecord({ id: 'o-1', events: 2, sequenceNumber: '9001' }),
      slotRecord({ id: 'o-1', seq: 3, sequenceNumber: '9002' }),
    ];

    const result = await relayOn(refusingAfterFirst).relay(records, { mayPublish: () => allowed });

    expect(sns.requests).toHaveLength(1);
    expect(result.published).toBe(1);
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: 'publishing was refused (mayPublish() returned false) before these events were sent; the record is retried',
    });
    expect(result.outcomes[1]).toMatchObject({ status: 'failed', reason: 'BLOCKED_BY_EARLIER_FAILURE' });
    expect(lowestFailedSequenceNumber(result)).toBe('9001');
  });

  it('is asked before each request of a wave: time taken to send one (a wrapper, the SDK) lets no later one through once it refuses', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const sns = new FakeSns();
    const cutoff = Date.now() + 5_000;
    // Sending the first request takes the clock past the cut-off before the send returns, with no
    // turn of the event loop in between, as synchronous work in a wrapper or the SDK can.
    const slowToSend = {
      send: (command: PublishBatchCommand) => {
        if (sns.requests.length === 0) vi.setSystemTime(cutoff + 1);
        return sns.send(command);
      },
    };
    // Forty aggregates, all ready at once: four requests of ten, one wave of the four publishConcurrency allows.
    const records = Array.from({ length: 40 }, (_, i) => slotRecord({ id: `o-${i}`, sequenceNumber: String(9300 + i) }));

    const result = await relayOn(slowToSend).relay(records, { mayPublish: () => Date.now() < cutoff });

    expect(sns.requests.map(({ entries }) => entries.length)).toEqual([10]);
    expect(result.published).toBe(10);
    expect(result.outcomes.slice(10).every((o) => o.status === 'failed' && o.reason === 'DEADLINE_REACHED')).toBe(true);
    expect(lowestFailedSequenceNumber(result)).toBe('9310');
  });

  it('is asked before a dead letter for an entry SNS rejected, and none is sent once it refuses', async () => {
    const sqs = new FakeSqs();
    let allowed = true;
    const rejecting = new FakeSns(() => {
      allowed = false;
      return 'permanent';
    });

    const result = await relayOn(rejecting, sqs).relay([slotRecord({ id: 'o-2', sequenceNumber: '9100' })], { mayPublish: () => allowed });

    expect(rejecting.requests).toHaveLength(1);
    expect(sqs.bodies).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      // Asked by the scheduler, before the dead letter's own request.
      detail: expect.stringContaining('refused (mayPublish() returned false)'),
    });
  });

  it('is asked before each retry of a throttled dead letter, and ends the retries once it refuses', async () => {
    let sends = 0;
    const throttled = {
      send: async () => {
        sends++;
        throw Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
      },
    };
    // Allowed until the DLQ has refused the first attempt.
    const mayPublish = () => sends === 0;

    const result = await relayOn(new FakeSns(), throttled as unknown as FakeSqs).relay([malformedRecord('9200')], { mayPublish });

    expect(sends).toBe(1);
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'DEADLINE_REACHED',
      detail: 'sending the dead letter was refused (mayPublish() returned false) after ThrottlingException: slow down',
    });
  });
});

import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { lowestFailedSequenceNumber, type PublishBatchClient, Relay, type RelayResult } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';
import { settlesWithin } from '../helpers/wait.js';

const relayOn = (sns: PublishBatchClient) =>
  new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl, backoff: { baseDelayMs: 1, maxDelayMs: 2 } });

/** A wrapped SNS client that sends but forgets to return the answer: a wrapper's easiest mistake. */
function forgetfulWrapper(client: FakeSns): PublishBatchClient {
  return {
    async send(command: PublishBatchCommand) {
      await client.send(command);
      return undefined as unknown as PublishBatchCommandOutput;
    },
  };
}

describe('a client wrapper that answers with no output', () => {
  it('fails the records it was sending, naming the error, instead of leaving them in flight for ever', async () => {
    const sns = new FakeSns();
    const records = [
      slotRecord({ id: 'o-1', sequenceNumber: '301' }),
      slotRecord({ id: 'o-1', seq: 2, sequenceNumber: '302' }),
      slotRecord({ id: 'o-2', sequenceNumber: '303' }),
    ];

    const result: RelayResult = await settlesWithin(relayOn(forgetfulWrapper(sns)).relay(records), 5_000, 'relay result');

    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'PUBLISH_FAILED' });
    expect(result.outcomes[0]!.status === 'failed' && result.outcomes[0]!.detail).toMatch(/TypeError/);
    expect(result.outcomes[1]).toMatchObject({ status: 'failed', reason: 'BLOCKED_BY_EARLIER_FAILURE' });
    expect(result.outcomes[2]).toMatchObject({ status: 'failed', reason: 'PUBLISH_FAILED' });
    expect(result.published).toBe(0);
    expect(lowestFailedSequenceNumber(result)).toBe('301');
    // Sent once each: nothing is retried that the relay could not read the answer of.
    expect(sns.requests.flatMap((r) => r.entries)).toHaveLength(2);
  });

  it('lets the Lambda handler answer with the first record to retry, before the function’s timeout', async () => {
    const handler = createRelayHandler({
      relay: relayOn(forgetfulWrapper(new FakeSns())),
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      metrics: { addMetric: () => {} },
    });
    const started = Date.now();
    const context = { getRemainingTimeInMillis: () => 3_000 - (Date.now() - started) };
    const answer = await settlesWithin(
      handler({ Records: [slotRecord({ id: 'o-3', sequenceNumber: '401' })] }, context),
      3_000,
      'handler answer',
    );
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '401' }] });
  });
});

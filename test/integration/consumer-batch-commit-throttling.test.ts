import { ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { THROTTLED_COMMIT_RETRY } from '../../shared/consumer/inbox-records.js';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer, hooks } = batchCommitFixture('consumer-batch-commit-throttling');

/**
 * Fails the next `times` TransactWriteItems (every one, by default) with `error` before they leave,
 * as DynamoDB's answer once the SDK's own retries are spent.
 */
function throttleTransactions(error: Error, times = Number.POSITIVE_INFINITY): void {
  let left = times;
  hooks.onSend = (command) => {
    if (command !== 'TransactWriteItems') return;
    if (--left <= 0) hooks.onSend = undefined;
    throw error;
  };
}

afterEach(() => {
  hooks.onSend = undefined;
});

const cancelledWith = (codes: readonly string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe("consumer, commit: 'batch', when the group's transaction is throttled", () => {
  it('sends the group again after a backoff when one of its actions was throttled, so no message of it fails for a passing throttle', async () => {
    const { consumer, sent, logs } = batchConsumer('blip');
    const bodies = ['b0', 'b1', 'b2'].map((id) => anEnvelope({ aggregateId: id }).body);
    // A hot item: one action throttled, which the SDK does not retry (a cancellation); the next attempt gets through.
    throttleTransactions(cancelledWith(['None', 'None', 'None', 'ThrottlingError', 'None', 'None']), 1);

    const { outcomes, batchItemFailures } = await consumer.process(messages(bodies));

    expect(statuses(outcomes)).toEqual(['processed', 'processed', 'processed']);
    expect(batchItemFailures).toEqual([]);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(logs.filter((l) => l.level !== 'info')).toEqual([]);
    expect(await Promise.all(['b0', 'b1', 'b2'].map((id) => applied('blip', id)))).toEqual([1, 1, 1]);
  });

  it('still throttled after its attempts, fails every message of the group with TRANSACTION_CONFLICT instead of sending one transaction per event, and the redelivery commits them', async () => {
    const { consumer, sent, logs } = batchConsumer('whole');
    const bodies = ['w0', 'w1', 'w2'].map((id) => anEnvelope({ aggregateId: id }).body);
    throttleTransactions(new ThrottlingException({ message: 'Throughput exceeds the current capacity of your table', $metadata: {} }));

    const { outcomes, batchItemFailures } = await consumer.process(messages(bodies));

    expect(statuses(outcomes)).toEqual(['failed', 'failed', 'failed']);
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m0', 'm1', 'm2']);
    const error = (outcomes[0] as { error: Error }).error;
    expect(error).toMatchObject({ name: 'InboxConflictError', code: 'TRANSACTION_CONFLICT' });
    expect(error.message).toContain(
      "the group's transaction of 3 events was throttled (3 attempts): the whole request: ThrottlingException",
    );
    expect(count(sent, 'TransactWriteItems')).toBe(THROTTLED_COMMIT_RETRY.maxAttempts);
    expect(logs.some((l) => l.level === 'warn' && l.message.startsWith("The batch's group transaction was throttled"))).toBe(true);
    expect(await Promise.all(['w0', 'w1', 'w2'].map((id) => applied('whole', id)))).toEqual([0, 0, 0]);

    // The throttling has passed when SQS delivers them again.
    hooks.onSend = undefined;
    const again = await consumer.process(messages(bodies));
    expect(statuses(again.outcomes)).toEqual(['processed', 'processed', 'processed']);
    expect(await Promise.all(['w0', 'w1', 'w2'].map((id) => applied('whole', id)))).toEqual([1, 1, 1]);
  });

  it('keeps FIFO order when an action is throttled beside a failed condition: a later message of the group is skipped, not committed', async () => {
    const { consumer, sent } = batchConsumer('fifo');
    const bodies = ['f0', 'f1', 'f2'].map((id) => anEnvelope({ aggregateId: id }).body);
    throttleTransactions(cancelledWith(['None', 'None', 'ThrottlingError', 'ConditionalCheckFailed', 'None', 'None']));

    const { outcomes } = await consumer.process(messages(bodies, ['g1', 'g1', 'g2']));

    expect(statuses(outcomes)).toEqual(['failed', 'skipped', 'failed']);
    expect(outcomes[1]).toMatchObject({ failedMessageId: 'm0' });
    expect((outcomes[2] as { error: Error }).error.message).toContain('was throttled (3 attempts): actions[2]: ThrottlingError');
    expect(count(sent, 'TransactWriteItems')).toBe(THROTTLED_COMMIT_RETRY.maxAttempts);
    expect(await Promise.all(['f0', 'f1', 'f2'].map((id) => applied('fifo', id)))).toEqual([0, 0, 0]);
  });
});

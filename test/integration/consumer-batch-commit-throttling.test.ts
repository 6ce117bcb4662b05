import { ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer, hooks } = batchCommitFixture('consumer-batch-commit-throttling');

/** Fails the next TransactWriteItems with `error` before it leaves, as DynamoDB's answer once the SDK's own retries are spent. */
function throttleNextTransaction(error: Error): void {
  hooks.onSend = (command) => {
    if (command !== 'TransactWriteItems') return;
    hooks.onSend = undefined;
    throw error;
  };
}

describe("consumer, commit: 'batch', when the group's transaction is throttled", () => {
  it('fails every message of the group with TRANSACTION_CONFLICT instead of sending one transaction per event, and the redelivery commits them', async () => {
    const { consumer, sent, logs } = batchConsumer('whole');
    const bodies = ['w0', 'w1', 'w2'].map((id) => anEnvelope({ aggregateId: id }).body);
    throttleNextTransaction(new ThrottlingException({ message: 'Throughput exceeds the current capacity of your table', $metadata: {} }));

    const { outcomes, batchItemFailures } = await consumer.process(messages(bodies));

    expect(statuses(outcomes)).toEqual(['failed', 'failed', 'failed']);
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m0', 'm1', 'm2']);
    const error = (outcomes[0] as { error: Error }).error;
    expect(error).toMatchObject({ name: 'InboxConflictError', code: 'TRANSACTION_CONFLICT' });
    expect(error.message).toContain("the group's transaction of 3 events was throttled: the whole request: ThrottlingException");
    expect(count(sent, 'TransactWriteItems')).toBe(1);
    expect(logs.some((l) => l.level === 'warn' && l.message.startsWith("The batch's group transaction was throttled"))).toBe(true);
    expect(await Promise.all(['w0', 'w1', 'w2'].map((id) => applied('whole', id)))).toEqual([0, 0, 0]);

    const again = await consumer.process(messages(bodies));
    expect(statuses(again.outcomes)).toEqual(['processed', 'processed', 'processed']);
    expect(await Promise.all(['w0', 'w1', 'w2'].map((id) => applied('whole', id)))).toEqual([1, 1, 1]);
  });

  it('keeps FIFO order when an action is throttled beside a failed condition: a later message of the group is skipped, not committed', async () => {
    const { consumer, sent } = batchConsumer('fifo');
    const bodies = ['f0', 'f1', 'f2'].map((id) => anEnvelope({ aggregateId: id }).body);
    const codes = ['None', 'None', 'ThrottlingError', 'ConditionalCheckFailed', 'None', 'None'];
    throttleNextTransaction(
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: codes.map((Code) => ({ Code })),
      }),
    );

    const { outcomes } = await consumer.process(messages(bodies, ['g1', 'g1', 'g2']));

    expect(statuses(outcomes)).toEqual(['failed', 'skipped', 'failed']);
    expect(outcomes[1]).toMatchObject({ failedMessageId: 'm0' });
    expect((outcomes[2] as { error: Error }).error.message).toContain('was throttled: actions[2]: ThrottlingError');
    expect(count(sent, 'TransactWriteItems')).toBe(1);
    expect(await Promise.all(['f0', 'f1', 'f2'].map((id) => applied('fifo', id)))).toEqual([0, 0, 0]);
  });
});

import { ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { THROTTLED_COMMIT_RETRY } from '../../shared/consumer/inbox-records.js';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer, failingCheck, hooks } = batchCommitFixture('consumer-event-commit-throttling');

/** Fails every TransactWriteItems with `error` before it leaves, as DynamoDB's answer once the SDK's own retries are spent. */
function throttleAll(error: Error): void {
  hooks.onSend = (command) => {
    if (command === 'TransactWriteItems') throw error;
  };
}

/** Fails the next TransactWriteItems with `errors`, one each, in order; the ones after go through. */
function failTransactions(...errors: Error[]): void {
  const left = [...errors];
  hooks.onSend = (command) => {
    if (command !== 'TransactWriteItems') return;
    const error = left.shift();
    if (left.length === 0) hooks.onSend = undefined;
    if (error !== undefined) throw error;
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

const eventConsumer = (scope: string) => batchConsumer(scope, { commit: 'event' });

describe("consumer, an event's own transaction throttled", () => {
  it("commit: 'event' sends it again after a backoff when an action of it was throttled, so the message does not fail", async () => {
    const { consumer, sent, logs } = eventConsumer('event-blip');
    // A hot item: the handler's Update throttled, which the SDK does not retry (a cancellation).
    failTransactions(cancelledWith(['ThrottlingError', 'None']));

    const { outcomes, batchItemFailures } = await consumer.process(messages([anEnvelope({ aggregateId: 'e0' }).body]));

    expect(statuses(outcomes)).toEqual(['processed']);
    expect(batchItemFailures).toEqual([]);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(logs.filter((l) => l.level !== 'info')).toEqual([]);
    expect(await applied('event-blip', 'e0')).toBe(1);
  });

  it("commit: 'event' still throttled after its attempts fails the message with TRANSACTION_CONFLICT naming them, and the redelivery commits it", async () => {
    const { consumer, sent } = eventConsumer('event-whole');
    const body = anEnvelope({ aggregateId: 'w0' }).body;
    throttleAll(new ThrottlingException({ message: 'Throughput exceeds the current capacity of your table', $metadata: {} }));

    const { outcomes, batchItemFailures } = await consumer.process(messages([body]));

    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    const error = (outcomes[0] as { error: Error }).error;
    expect(error).toMatchObject({ name: 'InboxConflictError', code: 'TRANSACTION_CONFLICT' });
    expect(error.message).toContain(`the whole request: ThrottlingException, Throughput exceeds the current capacity of your table`);
    expect(error.message).toContain(`throttled on each of ${THROTTLED_COMMIT_RETRY.maxAttempts} attempts`);
    expect(count(sent, 'TransactWriteItems')).toBe(THROTTLED_COMMIT_RETRY.maxAttempts);
    expect(await applied('event-whole', 'w0')).toBe(0);

    hooks.onSend = undefined;
    expect(statuses((await consumer.process(messages([body]))).outcomes)).toEqual(['processed']);
    expect(await applied('event-whole', 'w0')).toBe(1);
  });

  it('does not send again a cancellation a retry would meet again: a failed condition beside the throttled action decides', async () => {
    const { consumer, sent } = batchConsumer('event-permanent', { commit: 'event' }, { 'order.checked': failingCheck('event-permanent') });
    throttleAll(cancelledWith(['ThrottlingError', 'ConditionalCheckFailed', 'None']));

    const { outcomes } = await consumer.process(messages([anEnvelope({ aggregateId: 'p0', type: 'order.checked' }).body]));

    expect((outcomes[0] as { error: Error }).error.name).toBe('TransactionFailedError');
    expect(count(sent, 'TransactWriteItems')).toBe(1);
  });

  it("does not send again a cancellation whose inbox record's condition failed beside the throttled action: the event is a duplicate", async () => {
    const { consumer, sent } = eventConsumer('event-duplicate');
    throttleAll(cancelledWith(['ThrottlingError', 'ConditionalCheckFailed']));

    const { outcomes, batchItemFailures } = await consumer.process(messages([anEnvelope({ aggregateId: 'd0' }).body]));

    expect(statuses(outcomes)).toEqual(['duplicate']);
    expect(batchItemFailures).toEqual([]);
    expect(count(sent, 'TransactWriteItems')).toBe(1);
  });

  it("commit: 'event' does not retry a conflict with another transaction (not throttling): it fails the message at once", async () => {
    const { consumer, sent } = eventConsumer('event-conflict');
    failTransactions(cancelledWith(['TransactionConflict', 'None']));

    const { outcomes } = await consumer.process(messages([anEnvelope({ aggregateId: 'c0' }).body]));

    expect((outcomes[0] as { error: Error }).error).toMatchObject({ name: 'InboxConflictError' });
    expect(count(sent, 'TransactWriteItems')).toBe(1);
  });

  it("commit: 'batch' retries an event's own commit in the fallback after its group's transaction failed", async () => {
    const { consumer, sent } = batchConsumer('batch-fallback');
    const bodies = ['f0', 'f1'].map((id) => anEnvelope({ aggregateId: id }).body);
    // The group's transaction conflicts (no throttling: each event commits on its own), then the first event's is throttled once.
    failTransactions(cancelledWith(['TransactionConflict', 'None', 'None', 'None']), cancelledWith(['ThrottlingError', 'None']));

    const { outcomes, batchItemFailures } = await consumer.process(messages(bodies));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(batchItemFailures).toEqual([]);
    // The group's, the first event's twice, the second event's.
    expect(count(sent, 'TransactWriteItems')).toBe(4);
    expect(await Promise.all(['f0', 'f1'].map((id) => applied('batch-fallback', id)))).toEqual([1, 1]);
  });

  it("commit: 'batch' retries a group of one event (its own transaction) as a larger group's", async () => {
    const { consumer, sent } = batchConsumer('batch-one');
    failTransactions(cancelledWith(['None', 'ThrottlingError']));

    const { outcomes } = await consumer.process(messages([anEnvelope({ aggregateId: 'o0' }).body]));

    expect(statuses(outcomes)).toEqual(['processed']);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(await applied('batch-one', 'o0')).toBe(1);
  });
});

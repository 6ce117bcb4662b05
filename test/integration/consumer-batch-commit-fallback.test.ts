import { TransactionCanceledException, TransactionInProgressException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { InboxTransactionInProgressError } from '../../shared/consumer/errors.js';
import { batchBody } from '../../shared/envelope.js';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { addOne, applied, batchConsumer, failingCheck, hooks } = batchCommitFixture('consumer-batch-commit-fallback');

afterEach(() => {
  hooks.onSend = undefined;
});

/** Fails the next TransactWriteItems with `errors`, one each, in order, before they leave; the ones after go through. */
function failTransactions(...errors: Error[]): void {
  const left = [...errors];
  hooks.onSend = (command) => {
    if (command !== 'TransactWriteItems') return;
    const error = left.shift();
    if (left.length === 0) hooks.onSend = undefined;
    if (error !== undefined) throw error;
  };
}

describe("consumer, commit: 'batch', when a commit fails", () => {
  it('fails only the message whose ConditionCheck fails in a group of several, committing each other event on its own, once', async () => {
    const { consumer, sent, logs } = batchConsumer(
      'check',
      {},
      {
        'order.checked': failingCheck('check'),
      },
    );
    const events = [
      anEnvelope({ aggregateId: 'c0' }),
      anEnvelope({ aggregateId: 'c1' }),
      anEnvelope({ aggregateId: 'c2', type: 'order.checked' }),
      anEnvelope({ aggregateId: 'c3' }),
    ];

    const { outcomes, batchItemFailures } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'processed', 'failed', 'processed']);
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm2' }]);
    expect((outcomes[2] as { error: Error }).error.name).toBe('TransactionFailedError');
    // The group's transaction, cancelled, then each event's own.
    expect(count(sent, 'TransactWriteItems')).toBe(5);
    expect(logs.some((l) => l.message.startsWith("The batch's group transaction failed"))).toBe(true);
    expect(await Promise.all(['c0', 'c1', 'c2', 'c3'].map((id) => applied('check', id)))).toEqual([1, 1, 0, 1]);

    const again = await consumer.process(messages(events.map((e) => e.body)));
    expect(statuses(again.outcomes)).toEqual(['duplicate', 'duplicate', 'failed', 'duplicate']);
    expect(await Promise.all(['c0', 'c1', 'c2', 'c3'].map((id) => applied('check', id)))).toEqual([1, 1, 0, 1]);
  });

  it('skips the later messages of a FIFO group whose commit failed, committing none of their writes, and goes on with other groups', async () => {
    const { consumer } = batchConsumer(
      'fifo',
      {},
      {
        'order.checked': failingCheck('fifo'),
      },
    );
    const events = [
      anEnvelope({ aggregateId: 'f0', type: 'order.checked' }),
      anEnvelope({ aggregateId: 'f1' }),
      anEnvelope({ aggregateId: 'f2' }),
    ];

    const { outcomes, batchItemFailures } = await consumer.process(
      messages(
        events.map((e) => e.body),
        ['g1', 'g1', 'g2'],
      ),
    );

    expect(statuses(outcomes)).toEqual(['failed', 'skipped', 'processed']);
    expect(outcomes[1]).toMatchObject({ failedMessageId: 'm0' });
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m0', 'm1']);
    expect(await Promise.all(['f0', 'f1', 'f2'].map((id) => applied('fifo', id)))).toEqual([0, 0, 1]);
  });

  it('ends a batch message at the event whose commit fails: the earlier events stay committed, the later ones do not run', async () => {
    const ran: string[] = [];
    const { consumer, sent } = batchConsumer(
      'events',
      {},
      {
        'order.placed': {
          handle: (event, ctx) => {
            ran.push(event.id);
            ctx.write(addOne('events', event.subject));
          },
        },
        'order.checked': failingCheck('events', ran),
      },
    );
    // A batch message carries one aggregate's events in order, so each waits for the one before it to commit.
    const x = [
      anEnvelope({ id: 'x1', aggregateId: 'x', sequence: 1 }),
      anEnvelope({ id: 'x2', aggregateId: 'x', sequence: 2, type: 'order.checked' }),
      anEnvelope({ id: 'x3', aggregateId: 'x', sequence: 3 }),
    ];
    const y = anEnvelope({ id: 'y1', aggregateId: 'y' });

    const { outcomes } = await consumer.process(messages([y.body, batchBody(x.map((e) => e.body))]));

    expect(statuses(outcomes)).toEqual(['processed', 'failed']);
    expect(statuses((outcomes[1] as unknown as { events: { status: string }[] }).events)).toEqual(['processed', 'failed']);
    expect(ran).toEqual(['y1', 'x1', 'x2']);
    // y1 and x1 together, then x2 alone (cancelled by its condition).
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect([await applied('events', 'y'), await applied('events', 'x')]).toEqual([1, 1]);
  });

  it("fails an event whose own commit in the fallback meets TransactionInProgressException with the typed error, as commit: 'event' does", async () => {
    const { consumer } = batchConsumer('in-progress');
    const events = [anEnvelope({ aggregateId: 'i0' }), anEnvelope({ aggregateId: 'i1' })];
    const conflict = new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }],
    });
    // What is left once the SDK's retries (same ClientRequestToken) were all told an earlier attempt was still running.
    const inProgress = new TransactionInProgressException({ message: 'Transaction is ongoing for the idempotency token', $metadata: {} });
    // The group's transaction conflicts, so each event commits on its own; the first event's own commit is in progress.
    failTransactions(conflict, inProgress);

    const { outcomes, batchItemFailures } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['failed', 'processed']);
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    const error = (outcomes[0] as { error: Error }).error;
    expect(error).toBeInstanceOf(InboxTransactionInProgressError);
    expect(error).toMatchObject({ code: 'TRANSACTION_IN_PROGRESS', eventId: events[0]?.id, cause: inProgress });
    expect(await Promise.all(['i0', 'i1'].map((id) => applied('in-progress', id)))).toEqual([0, 1]);

    // Its redelivery: the attempt did not commit, so the event commits now.
    const again = await consumer.process(messages(events.map((e) => e.body)));
    expect(statuses(again.outcomes)).toEqual(['processed', 'duplicate']);
    expect(await Promise.all(['i0', 'i1'].map((id) => applied('in-progress', id)))).toEqual([1, 1]);
  });
});

import { describe, expect, it } from 'vitest';
import { batchCommitFixture, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer } = batchCommitFixture('consumer-batch-commit-review');

describe("consumer, commit: 'batch', a FIFO group whose later message fails", () => {
  it('processes the earlier message waiting in the group when a later message of its FIFO group fails in its handler', async () => {
    const { consumer } = batchConsumer(
      'later-throws',
      {},
      {
        'order.cancelled': {
          handle: () => {
            throw new Error('boom');
          },
        },
      },
    );
    // One FIFO group, two aggregates: the second message does not flush the group before it runs.
    const events = [anEnvelope({ aggregateId: 'a0' }), anEnvelope({ aggregateId: 'a1', type: 'order.cancelled' })];

    const { outcomes, batchItemFailures } = await consumer.process(
      messages(
        events.map((e) => e.body),
        ['g', 'g'],
      ),
    );

    expect(statuses(outcomes)).toEqual(['processed', 'failed']);
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1']);
    expect(await applied('later-throws', 'a0')).toBe(1);
  });

  it('processes the earlier message waiting in the group when a later message of its FIFO group is rejected before it runs', async () => {
    const { consumer } = batchConsumer('later-rejected');
    const events = [anEnvelope({ aggregateId: 'b0' }), anEnvelope({ aggregateId: 'b0', type: 'order.unknown', sequence: 2 })];

    const { outcomes, batchItemFailures } = await consumer.process(
      messages(
        events.map((e) => e.body),
        ['g', 'g'],
      ),
    );

    expect(statuses(outcomes)).toEqual(['processed', 'rejected']);
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1']);
    expect(await applied('later-rejected', 'b0')).toBe(1);
  });
});

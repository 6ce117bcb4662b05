import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchCommitFixture, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer, clients } = batchCommitFixture('consumer-batch-commit-review');

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

describe("consumer, commit: 'batch', handlers' keys", () => {
  it('commits writes whose key holds a bigint, as commit: event does, instead of failing the whole batch', async () => {
    // A table keyed by a number, which the DocumentClient also takes as a bigint.
    const numbered = `consumer-batch-commit-review-n-${randomUUID().slice(0, 8)}`;
    await clients.dynamodb.send(
      new CreateTableCommand({
        TableName: numbered,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const addTo = (id: bigint) => ({
      Update: { TableName: numbered, Key: { id }, UpdateExpression: 'ADD applied :one', ExpressionAttributeValues: { ':one': 1 } },
    });
    const { consumer } = batchConsumer('bigint', {}, { 'order.placed': { handle: (_event, ctx) => ctx.write(addTo(2n ** 60n)) } });
    const events = [anEnvelope({ aggregateId: 'n0' }), anEnvelope({ aggregateId: 'n1' })];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    const { Item } = await clients.document.send(new GetCommand({ TableName: numbered, Key: { id: 2n ** 60n }, ConsistentRead: true }));
    expect(Number(Item?.applied)).toBe(2);
  });

  it('fails only the event whose handler passes ctx.write something that is not a write, as commit: event does', async () => {
    const { consumer } = batchConsumer('not-a-write', {}, { 'order.cancelled': { handle: (_event, ctx) => ctx.write(null as never) } });
    const events = [anEnvelope({ aggregateId: 'w0' }), anEnvelope({ aggregateId: 'w1', type: 'order.cancelled' })];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'failed']);
    expect(await applied('not-a-write', 'w0')).toBe(1);
  });
});

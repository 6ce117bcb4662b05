import { describe, expect, it } from 'vitest';
import type { EventHandler } from '../../shared/consumer/types.js';
import { batchCommitFixture, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { addOne, applied, batchConsumer } = batchCommitFixture('consumer-same-message-twice');

/**
 * A standard queue delivers at least once: a Lambda batch gathered over a batching window can
 * hold one message twice (one message id, two receipts). Its copies run in turn, so the second
 * finds the event done instead of racing the first.
 */
describe('consumer, one message twice in a batch (standard queue)', () => {
  const handlers = (scope: string, ran: string[]): Record<string, EventHandler> => ({
    // Each handler takes a while, so the copy, run beside it, would meet its claim or race its commit.
    'order.placed': {
      handle: async (event, ctx) => {
        ran.push(event.id);
        await new Promise((resolve) => setImmediate(resolve));
        ctx.write(addOne(scope, event.subject));
      },
    },
    'order.shipped': {
      idempotency: 'claim',
      handle: async (event) => {
        ran.push(event.id);
        await new Promise((resolve) => setImmediate(resolve));
      },
    },
  });

  for (const commit of ['event', 'batch'] as const) {
    for (const type of ['order.placed', 'order.shipped'] as const) {
      it(`commit: '${commit}', ${type === 'order.shipped' ? 'a claim' : 'a transaction'} handler: handled once, acknowledged, even with concurrency 2`, async () => {
        const scope = `twice-${commit}-${type}`;
        const ran: string[] = [];
        const { consumer } = batchConsumer(scope, { commit, concurrency: 2 }, handlers(scope, ran));
        const body = anEnvelope({ aggregateId: 'a', type }).body;
        const other = anEnvelope({ aggregateId: 'b' }).body;
        const batch = messages([body, body, other]).map((m, i) => (i === 1 ? { ...m, messageId: 'm0' } : m));

        const { outcomes, batchItemFailures } = await consumer.process(batch);

        expect(statuses(outcomes)).toEqual(['processed', 'duplicate', 'processed']);
        expect(batchItemFailures).toEqual([]);
        expect(ran.filter((id) => id === ran[0]).length).toBe(1);
        if (type === 'order.placed') expect(await applied(scope, 'a')).toBe(1);
      });
    }
  }
});

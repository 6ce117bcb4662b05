import { Logger } from '@aws-lambda-powertools/logger';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { declaredEventTypes, UNDECLARED_EVENT_TYPE } from '../../shared/lag-by-event-type.js';
import { summarizeBatch } from '../../shared/relay/batch-summary.js';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { RELAY_METRICS, type RelayBatchSummary, relayMetrics } from '../../shared/relay/index.js';
import { FakeSns, fakeRelay } from '../helpers/fake-sns.js';
import { captureEmf } from '../helpers/metrics.js';
import { slotRecord } from '../helpers/stream-records.js';

const base: OutboxConfigInput = {
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { maxPublishAttempts: 1 },
};
const withCatalog = defineConfig({
  ...base,
  eventTypes: { 'order.placed': { version: 1 }, 'order.paid': [{ version: 1 }, { version: 2 }], 'payment.taken': { version: 1 } },
  undeclaredEventTypes: 'allow',
});

const CREATED_S = 1_750_000_000;

/** A slot record of `aggregateType` whose events have the given types, committed `CREATED_S + offsetS`. */
function commit(aggregateType: string, id: string, eventTypes: readonly string[], offsetS = 0): DynamoDBRecord {
  const record = slotRecord({ type: aggregateType, id, events: eventTypes.length });
  const image = record.dynamodb!.NewImage!;
  const events = image.events!.L!.map((event, i) => ({
    M: { ...event.M!, type: (marshall({ type: eventTypes[i] }) as Record<string, AttributeValue>).type! },
  }));
  return {
    ...record,
    dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: CREATED_S + offsetS, NewImage: { ...image, events: { L: events } } },
  };
}

describe('relay lag per event type: the summary', () => {
  it('keeps the oldest lag per (aggregate type, declared event type) and buckets every undeclared type as one value', () => {
    const records = [
      commit('order', 'o-1', ['order.placed', 'order.shipped'], 0),
      commit('order', 'o-2', ['order.placed', 'order.paid', 'order.archived'], 2),
      commit('payment', 'p-1', ['payment.taken'], 3),
    ];
    const result = {
      outcomes: records.map((r) => ({
        status: 'delivered' as const,
        record: { sequenceNumber: r.dynamodb!.SequenceNumber! },
        published: 2,
        deadLettered: 0,
      })),
      published: 6,
      retried: 0,
      deadLettered: 0,
      ignored: 0,
      failed: 0,
    };

    const summary = summarizeBatch(records, result, CREATED_S * 1000 + 5_000, declaredEventTypes(withCatalog));

    expect(summary.lagByEventType).toEqual({
      order: { 'order.placed': 5_000, [UNDECLARED_EVENT_TYPE]: 5_000, 'order.paid': 3_000 },
      payment: { 'payment.taken': 2_000 },
    });
  });

  it('leaves lagByEventType out when the config declares no event types', () => {
    const records = [commit('order', 'o-1', ['order.placed'])];
    const result = {
      outcomes: [{ status: 'delivered' as const, record: { sequenceNumber: '1' }, published: 1, deadLettered: 0 }],
      published: 1,
      retried: 0,
      deadLettered: 0,
      ignored: 0,
      failed: 0,
    };

    const summary = summarizeBatch(records, result, CREATED_S * 1000, declaredEventTypes(defineConfig(base)));

    expect(summary).not.toHaveProperty('lagByEventType');
    expect(summary.lagByAggregateType).toEqual({ order: 0 });
  });
});

describe('relay lag per event type: the EMF lines', () => {
  it('writes one lagByEventType line per (aggregate type, event type) published, under both dimensions, after the per-aggregate-type lines', async () => {
    const metrics = relayMetrics('orders-relay');
    const written = captureEmf(metrics);
    const summaries: RelayBatchSummary[] = [];
    const handler = createRelayHandler({
      relay: fakeRelay(withCatalog, new FakeSns(() => 'ok')),
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics,
      now: () => CREATED_S * 1000 + 4_000,
      onOutcome: (summary) => {
        summaries.push(summary);
      },
    });

    await handler({
      Records: [
        commit('order', 'o-1', ['order.placed', 'order.refund-requested'], 0),
        commit('order', 'o-2', ['order.paid', 'order.gift-wrapped'], 1),
        commit('payment', 'p-1', ['payment.taken'], 2),
      ],
    });

    const byEventType = written.filter((line) => RELAY_METRICS.lagByEventType in line);
    // One batch line, two per-aggregate-type lines, then the pairs: 2 declared + the bucket for order, 1 for payment.
    expect(written).toHaveLength(1 + 2 + 4);
    expect(written.slice(3)).toEqual(byEventType);
    for (const line of byEventType) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        {
          Namespace: RELAY_METRICS.namespace,
          Dimensions: [
            ['service', RELAY_METRICS.functionDimension, RELAY_METRICS.aggregateTypeDimension, RELAY_METRICS.eventTypeDimension],
          ],
          Metrics: [{ Name: RELAY_METRICS.lagByEventType, Unit: 'Milliseconds' }],
        },
      ]);
      expect(line).toMatchObject({ [RELAY_METRICS.functionDimension]: 'orders-relay' });
      expect(line).not.toHaveProperty(RELAY_METRICS.lagByAggregateType);
    }
    expect(
      byEventType.map((line) => [
        line[RELAY_METRICS.aggregateTypeDimension],
        line[RELAY_METRICS.eventTypeDimension],
        line[RELAY_METRICS.lagByEventType],
      ]),
    ).toEqual([
      ['order', 'order.placed', 4_000],
      ['order', RELAY_METRICS.undeclaredEventType, 4_000],
      ['order', 'order.paid', 3_000],
      ['payment', 'payment.taken', 2_000],
    ]);
    expect(summaries[0]!.lagByEventType).toEqual({
      order: { 'order.placed': 4_000, [UNDECLARED_EVENT_TYPE]: 4_000, 'order.paid': 3_000 },
      payment: { 'payment.taken': 2_000 },
    });
  });

  it('writes no lagByEventType line when the config declares no event types', async () => {
    const metrics = relayMetrics('orders-relay');
    const written = captureEmf(metrics);
    const handler = createRelayHandler({
      relay: fakeRelay(defineConfig(base), new FakeSns(() => 'ok')),
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics,
      now: () => CREATED_S * 1000 + 4_000,
    });

    await handler({ Records: [commit('order', 'o-1', ['order.placed']), commit('payment', 'p-1', ['payment.taken'])] });

    expect(written).toHaveLength(3);
    expect(written.some((line) => RELAY_METRICS.lagByEventType in line || RELAY_METRICS.eventTypeDimension in line)).toBe(false);
  });

  it('leaves out event types of records none of whose events were published', async () => {
    const metrics = relayMetrics('orders-relay');
    const written = captureEmf(metrics);
    const sns = new FakeSns((entry) => (JSON.parse(entry.Message ?? '{}').subject === 'p-1' ? 'transient' : 'ok'));
    const handler = createRelayHandler({
      relay: fakeRelay(withCatalog, sns),
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics,
      now: () => CREATED_S * 1000 + 4_000,
    });

    await handler({ Records: [commit('payment', 'p-1', ['payment.taken']), commit('order', 'o-1', ['order.placed'], 1)] });

    const pairs = written
      .filter((line) => RELAY_METRICS.lagByEventType in line)
      .map((line) => [line[RELAY_METRICS.aggregateTypeDimension], line[RELAY_METRICS.eventTypeDimension]]);
    expect(pairs).toEqual([['order', 'order.placed']]);
  });
});

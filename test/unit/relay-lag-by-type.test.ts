import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { RELAY_METRICS, type RelayBatchSummary, relayMetrics } from '../../shared/relay/index.js';
import { FakeSns, fakeRelay } from '../helpers/fake-sns.js';
import { captureEmf } from '../helpers/metrics.js';
import { slotRecord } from '../helpers/stream-records.js';

const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { maxPublishAttempts: 1 },
});

const CREATED_S = 1_750_000_000;
const created = (record: DynamoDBRecord, seconds: number): DynamoDBRecord => ({
  ...record,
  dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: seconds },
});

describe('relay lag per aggregate type', () => {
  it('writes one lagByAggregateType line per published aggregate type, the oldest record of each, apart from the batch line', async () => {
    const metrics = relayMetrics('orders-relay');
    const written = captureEmf(metrics);
    const records = [
      created(slotRecord({ type: 'order', id: 'o-1' }), CREATED_S),
      created(slotRecord({ type: 'order', id: 'o-2' }), CREATED_S + 2),
      created(slotRecord({ type: 'payment', id: 'p-1' }), CREATED_S + 3),
    ];
    const summaries: RelayBatchSummary[] = [];
    const handler = createRelayHandler({
      relay: fakeRelay(config, new FakeSns(() => 'ok')),
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics,
      now: () => CREATED_S * 1000 + 5_000,
      onOutcome: (summary) => {
        summaries.push(summary);
      },
    });

    await handler({ Records: records });

    expect(summaries[0]!.lagByAggregateType).toEqual({ order: 5_000, payment: 2_000 });
    expect(written).toHaveLength(3);
    expect(written[0]).not.toHaveProperty(RELAY_METRICS.aggregateTypeDimension);
    expect(written[0]).not.toHaveProperty(RELAY_METRICS.lagByAggregateType);
    const perType = written.slice(1);
    for (const line of perType) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        {
          Namespace: RELAY_METRICS.namespace,
          Dimensions: [['service', RELAY_METRICS.functionDimension, RELAY_METRICS.aggregateTypeDimension]],
          Metrics: [{ Name: RELAY_METRICS.lagByAggregateType, Unit: 'Milliseconds' }],
        },
      ]);
      expect(line).toMatchObject({ [RELAY_METRICS.functionDimension]: 'orders-relay' });
    }
    expect(perType.map((line) => [line[RELAY_METRICS.aggregateTypeDimension], line[RELAY_METRICS.lagByAggregateType]])).toEqual([
      ['order', 5_000],
      ['payment', 2_000],
    ]);
  });

  it('leaves out aggregate types none of whose events were published: unrouted ones (dead-lettered) and failed ones', async () => {
    const metrics = relayMetrics('orders-relay');
    const written = captureEmf(metrics);
    const records = [
      created(slotRecord({ type: 'invoice', id: 'i-1' }), CREATED_S),
      created(slotRecord({ type: 'payment', id: 'p-1' }), CREATED_S),
      created(slotRecord({ type: 'order', id: 'o-1' }), CREATED_S + 1),
    ];
    const sns = new FakeSns((entry) => (JSON.parse(entry.Message ?? '{}').subject === 'p-1' ? 'transient' : 'ok'));
    const handler = createRelayHandler({
      relay: fakeRelay(config, sns),
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics,
      now: () => CREATED_S * 1000 + 3_000,
    });

    await handler({ Records: records });

    expect(written[0]).toMatchObject({ [RELAY_METRICS.lag]: 3_000, [RELAY_METRICS.deadLettered]: 1, [RELAY_METRICS.failedRecords]: 1 });
    expect(written.slice(1).map((line) => [line[RELAY_METRICS.aggregateTypeDimension], line[RELAY_METRICS.lagByAggregateType]])).toEqual([
      ['order', 2_000],
    ]);
  });

  it('emits no lagByAggregateType to a metrics sink that cannot add a dimension', async () => {
    const added: string[] = [];
    const handler = createRelayHandler({
      relay: fakeRelay(config, new FakeSns(() => 'ok')),
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics: { addMetric: (name) => added.push(name), publishStoredMetrics: () => {} },
    });

    await handler({ Records: [slotRecord({ type: 'order', id: 'o-9' })] });

    expect(added).toContain(RELAY_METRICS.lag);
    expect(added).not.toContain(RELAY_METRICS.lagByAggregateType);
  });
});

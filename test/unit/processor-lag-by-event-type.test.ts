import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import { UNDECLARED_EVENT_TYPE } from '../../shared/lag-by-event-type.js';
import { PROCESSOR_METRICS, processorMetrics, processorObserver } from '../../shared/processor/index.js';
import type { BatchReport } from '../../shared/processor/worker-observer.js';
import { reportBatch } from '../../shared/processor/worker-reports.js';
import type { RelayResult } from '../../shared/relay/index.js';
import { captureEmf } from '../helpers/metrics.js';

const silent = () => new Logger({ logLevel: 'SILENT' });

describe('processor lag per event type: the EMF lines', () => {
  it("writes the largest lagByEventType of a flush interval's batches per (aggregate type, event type), each on a line of its own", () => {
    const metrics = processorMetrics('orders-leases');
    const published = captureEmf(metrics);
    const observer = processorObserver(silent(), metrics, 0);
    observer.batch?.({
      shardId: 's1',
      records: 3,
      published: 3,
      ignored: 0,
      lagMs: 900,
      lagByAggregateType: { stock: 900 },
      lagByEventType: { stock: { 'stock.reserved': 900, [UNDECLARED_EVENT_TYPE]: 40 } },
    });
    observer.batch?.({
      shardId: 's2',
      records: 1,
      published: 1,
      ignored: 0,
      lagMs: 70,
      lagByAggregateType: { stock: 70 },
      lagByEventType: { stock: { [UNDECLARED_EVENT_TYPE]: 70 } },
    });
    observer.leaseScan?.({ held: 2, total: 2 });

    const byEventType = published.filter((line) => PROCESSOR_METRICS.lagByEventType in line);
    expect(published).toHaveLength(1 + 1 + 2);
    expect(published.slice(2)).toEqual(byEventType);
    for (const line of byEventType) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        {
          Namespace: PROCESSOR_METRICS.namespace,
          Dimensions: [
            [
              'service',
              PROCESSOR_METRICS.leaseTableDimension,
              PROCESSOR_METRICS.aggregateTypeDimension,
              PROCESSOR_METRICS.eventTypeDimension,
            ],
          ],
          Metrics: [{ Name: PROCESSOR_METRICS.lagByEventType, Unit: MetricUnit.Milliseconds }],
        },
      ]);
    }
    expect(
      byEventType.map((line) => [
        line[PROCESSOR_METRICS.aggregateTypeDimension],
        line[PROCESSOR_METRICS.eventTypeDimension],
        line[PROCESSOR_METRICS.lagByEventType],
      ]),
    ).toEqual([
      ['stock', 'stock.reserved', 900],
      ['stock', PROCESSOR_METRICS.undeclaredEventType, 70],
    ]);

    // The next interval starts empty: no pair's lag carries over.
    observer.batch?.({ shardId: 's1', records: 1, published: 0, ignored: 1, lagMs: 10, lagByAggregateType: {} });
    observer.leaseScan?.({ held: 2, total: 2 });
    expect(published).toHaveLength(5);
    expect(published[4]).not.toHaveProperty(PROCESSOR_METRICS.lagByEventType);
  });
});

describe('processor lag per event type: the batch report', () => {
  const now = Date.now();
  const record = (aggregateType: string, agoMs: number, eventTypes: readonly string[]): _Record => ({
    dynamodb: {
      ApproximateCreationDateTime: new Date(now - agoMs),
      NewImage: { aggregateType: { S: aggregateType }, events: { L: eventTypes.map((type) => ({ M: { type: { S: type } } })) } },
    },
  });
  const at = (i: number) => ({ sequenceNumber: String(i) });
  const records = [
    record('stock', 5_000, ['stock.reserved', 'stock.recounted']),
    record('stock', 2_000, ['stock.released']),
    record('stock', 8_000, ['stock.reserved']),
  ];
  const result: RelayResult = {
    outcomes: [
      { status: 'delivered', record: at(1), published: 2, deadLettered: 0 },
      { status: 'delivered', record: at(2), published: 1, deadLettered: 0 },
      { status: 'failed', record: at(3), reason: 'PUBLISH_FAILED', detail: 'x' },
    ],
    published: 3,
    retried: 0,
    deadLettered: 0,
    ignored: 0,
    failed: 1,
  };

  it('buckets the event types of the published records by the declared ones, the oldest lag of each pair', () => {
    const reports: BatchReport[] = [];
    reportBatch({ batch: (report) => reports.push(report) }, 's1', records, result, new Set(['stock.reserved', 'stock.released']));

    const lags = reports[0]!.lagByEventType!;
    expect(Object.keys(lags)).toEqual(['stock']);
    expect(Object.keys(lags.stock!)).toEqual(['stock.reserved', UNDECLARED_EVENT_TYPE, 'stock.released']);
    // The failed record (8 s old) is not published: the declared type keeps its published record's lag.
    expect(lags.stock!['stock.reserved']).toBeGreaterThanOrEqual(5_000);
    expect(lags.stock!['stock.reserved']).toBeLessThan(6_000);
    expect(lags.stock!['stock.released']).toBeLessThan(3_000);
  });

  it('reports no lag per event type without declared event types', () => {
    const reports: BatchReport[] = [];
    reportBatch({ batch: (report) => reports.push(report) }, 's1', records, result);

    expect(reports[0]).not.toHaveProperty('lagByEventType');
    expect(Object.keys(reports[0]!.lagByAggregateType!)).toEqual(['stock']);
  });
});

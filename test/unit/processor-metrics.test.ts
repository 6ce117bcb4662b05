import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { PROCESSOR_METRICS, processorMetrics, processorObserver } from '../../shared/processor/index.js';
import { captureEmf } from '../helpers/metrics.js';

describe('processor metrics', () => {
  it('land in the namespace and under the dimensions the construct alarms on, lease table included', () => {
    const metrics = processorMetrics('orders-leases');
    metrics.addMetric(PROCESSOR_METRICS.lag, MetricUnit.Milliseconds, 1234);
    const emf = metrics.serializeMetrics();
    expect(emf._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: PROCESSOR_METRICS.namespace,
        Dimensions: [['service', PROCESSOR_METRICS.leaseTableDimension]],
        Metrics: [{ Name: PROCESSOR_METRICS.lag, Unit: MetricUnit.Milliseconds }],
      },
    ]);
    expect(emf).toMatchObject({ service: PROCESSOR_METRICS.service, [PROCESSOR_METRICS.leaseTableDimension]: 'orders-leases', lag: 1234 });
  });

  it("report the largest lag of a flush interval's batches under that name", () => {
    const metrics = processorMetrics('orders-leases');
    const published = captureEmf(metrics);
    const observer = processorObserver(new Logger({ logLevel: 'SILENT' }), metrics, 0);
    observer.batch?.({ shardId: 's1', records: 3, published: 3, ignored: 0, lagMs: 40 });
    observer.batch?.({ shardId: 's2', records: 2, published: 2, ignored: 0, lagMs: 900 });
    observer.leaseScan?.({ held: 2, total: 2 });
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ [PROCESSOR_METRICS.lag]: 900, records: 5, published: 5, leasesHeld: 2, leasesTotal: 2 });
  });
});

import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordPublisher } from '../../shared/processor/consumer-context.js';
import { type OnFailureReport, PROCESSOR_METRICS, processorMetrics, processorObserver } from '../../shared/processor/index.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { Worker } from '../../shared/processor/worker.js';
import type { BatchReport } from '../../shared/processor/worker-observer.js';
import { reportBatch } from '../../shared/processor/worker-reports.js';
import type { RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { captureEmf } from '../helpers/metrics.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

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

  it('are written out by flush() without waiting for a lease scan, so a stopping worker loses none', () => {
    const metrics = processorMetrics('orders-leases');
    const published = captureEmf(metrics);
    const observer = processorObserver(new Logger({ logLevel: 'SILENT' }), metrics);
    observer.batch?.({ shardId: 's1', records: 4, published: 3, ignored: 1, lagMs: 70 });
    observer.trimmed?.({ shardId: 's2', checkpoint: '100', shardGone: false });
    // Within the flush interval: a scan writes nothing yet.
    observer.leaseScan?.({ held: 1, total: 1 });
    expect(published).toEqual([]);
    observer.flush();
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ records: 4, published: 3, [PROCESSOR_METRICS.lag]: 70, trimmed: 1 });
    observer.flush();
    expect(published[1]).toMatchObject({ records: 0, published: 0, trimmed: 0 });
    expect(published[1]).not.toHaveProperty(PROCESSOR_METRICS.lag);
  });

  it('count every record given up on and every failed write of them, and log the object key', () => {
    const metrics = processorMetrics('orders-leases');
    const published = captureEmf(metrics);
    const logger = new Logger({ logLevel: 'SILENT' });
    const errors = vi.spyOn(logger, 'error');
    const observer = processorObserver(logger, metrics);
    const report: OnFailureReport = {
      shardId: 's1',
      condition: 'RetryAttemptsExhausted',
      attempts: 11,
      records: 3,
      firstSequenceNumber: '100',
      lastSequenceNumber: '300',
      lagMs: 5000,
    };
    observer.onFailureWriteFailed?.({ ...report, error: new Error('Service Unavailable') });
    observer.sentToOnFailure?.({ ...report, key: 'outbox-processor/s1/2025/01/01/2025-01-01T00.00.00-id' });
    observer.flush();
    expect(published[0]).toMatchObject({ [PROCESSOR_METRICS.onFailureRecords]: 3, [PROCESSOR_METRICS.onFailureWriteFailures]: 1 });
    expect(errors.mock.calls.map(([message]) => message)).toEqual([
      'writing records given up on to the on-failure destination failed; the shard waits and retries the write',
      'records given up on were written to the on-failure destination; redrive them once the cause is fixed',
    ]);
    expect(errors.mock.calls[1]![1]).toMatchObject({ key: 'outbox-processor/s1/2025/01/01/2025-01-01T00.00.00-id', records: 3 });
    observer.flush();
    expect(published[1]).toMatchObject({ [PROCESSOR_METRICS.onFailureRecords]: 0, [PROCESSOR_METRICS.onFailureWriteFailures]: 0 });
  });
});

describe('processor lag, as the worker reports it', () => {
  const MINUTE = 60_000;
  /** Commit ages of a backlog of three records on one shard, oldest first. */
  const AGES = [60 * MINUTE, 10 * MINUTE, MINUTE];
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.halt();
    worker = undefined;
  });

  /** Starts a worker on that backlog, with `publisher`; resolves to the list of EMF its observer writes. */
  async function workOnBacklog(
    publisher: RecordPublisher,
    { failReads = false } = {},
  ): Promise<ReturnType<ReturnType<typeof processorMetrics>['serializeMetrics']>[]> {
    const stream = new SimulatedStream();
    if (failReads) {
      const send = stream.send.bind(stream);
      stream.send = (async (command: Parameters<typeof send>[0]) => {
        if (command instanceof GetRecordsCommand) {
          throw Object.assign(new Error('not authorized to perform dynamodb:GetRecords'), { name: 'AccessDeniedException' });
        }
        return send(command as GetRecordsCommand);
      }) as typeof stream.send;
    }
    for (let seq = 1; seq <= AGES.length; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    for (const [index, record] of stream.shards[0]!.records.entries()) {
      record.dynamodb!.ApproximateCreationDateTime = new Date(Date.now() - AGES[index]!);
    }
    const metrics = processorMetrics('orders-leases');
    const written = captureEmf(metrics);
    worker = new Worker({
      source: new StreamSource(stream, stream.streamArn),
      leases: new MemoryLeaseStore(),
      publisher,
      workerId: 'w1',
      settings: { failoverMs: 400, renewIntervalMs: 100, leaseScanIntervalMs: 20, shardSyncIntervalMs: 20, retryMaxDelayMs: 20 },
      observer: processorObserver(new Logger({ logLevel: 'SILENT' }), metrics, 0),
    });
    await worker.start();
    return written;
  }

  const result = (records: Parameters<RecordPublisher['relay']>[0], failed: boolean): RelayResult => ({
    outcomes: records.map((record) =>
      failed
        ? { status: 'failed', record: coordinatesOf(record), reason: 'PUBLISH_FAILED', detail: 'SNS unavailable' }
        : { status: 'delivered', record: coordinatesOf(record), published: 1, deadLettered: 0 },
    ),
    published: failed ? 0 : records.length,
    retried: 0,
    deadLettered: 0,
    ignored: 0,
    failed: failed ? records.length : 0,
  });
  const lags = (written: { [key: string]: unknown }[]) =>
    written.map((emf) => emf[PROCESSOR_METRICS.lag]).filter((lag) => lag !== undefined);

  it("is the age of a published page's oldest record, not of its newest", async () => {
    const written = await workOnBacklog({ relay: async (records) => result(records, false) });
    await vi.waitFor(() => expect(lags(written)).not.toEqual([]), { timeout: 10_000, interval: 10 });
    expect(Math.max(...(lags(written) as number[]))).toBeGreaterThanOrEqual(AGES[0]!);
  });

  it('keeps being reported, as the age of the oldest record not published, while a page fails to publish', async () => {
    const written = await workOnBacklog({ relay: async (records) => result(records, true) });
    await vi.waitFor(() => expect(lags(written).length).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 10 });
    for (const lag of lags(written)) expect(lag).toBeGreaterThanOrEqual(AGES[0]!);
  });

  it('keeps being reported, as the time since the shard was last read, while its records cannot be read', async () => {
    const startedAt = Date.now();
    const written = await workOnBacklog({ relay: async (records) => result(records, false) }, { failReads: true });
    await vi.waitFor(() => expect(Math.max(0, ...(lags(written) as number[]))).toBeGreaterThanOrEqual(300), {
      timeout: 10_000,
      interval: 10,
    });
    const reported = lags(written) as number[];
    // Rising with the time the reads keep failing, never more than it (the records' own ages are unknown: none was read).
    expect(reported).toEqual([...reported].sort((a, b) => a - b));
    expect(Math.max(...reported)).toBeLessThanOrEqual(Date.now() - startedAt);
  });
});

describe('processor lag per aggregate type', () => {
  it("writes the largest lagByAggregateType of a flush interval's batches per aggregate type, each on a line of its own", () => {
    const metrics = processorMetrics('orders-leases');
    const published = captureEmf(metrics);
    const observer = processorObserver(new Logger({ logLevel: 'SILENT' }), metrics, 0);
    observer.batch?.({ shardId: 's1', records: 3, published: 3, ignored: 0, lagMs: 900, lagByAggregateType: { order: 900, stock: 40 } });
    observer.batch?.({ shardId: 's2', records: 1, published: 1, ignored: 0, lagMs: 70, lagByAggregateType: { stock: 70 } });
    observer.leaseScan?.({ held: 2, total: 2 });

    expect(published).toHaveLength(3);
    expect(published[0]).not.toHaveProperty(PROCESSOR_METRICS.aggregateTypeDimension);
    for (const line of published.slice(1)) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        {
          Namespace: PROCESSOR_METRICS.namespace,
          Dimensions: [['service', PROCESSOR_METRICS.leaseTableDimension, PROCESSOR_METRICS.aggregateTypeDimension]],
          Metrics: [{ Name: PROCESSOR_METRICS.lagByAggregateType, Unit: MetricUnit.Milliseconds }],
        },
      ]);
    }
    expect(
      published.slice(1).map((line) => [line[PROCESSOR_METRICS.aggregateTypeDimension], line[PROCESSOR_METRICS.lagByAggregateType]]),
    ).toEqual([
      ['order', 900],
      ['stock', 70],
    ]);

    // The next interval starts empty: no aggregate type's lag carries over.
    observer.batch?.({ shardId: 's1', records: 1, published: 0, ignored: 1, lagMs: 10, lagByAggregateType: {} });
    observer.leaseScan?.({ held: 2, total: 2 });
    expect(published).toHaveLength(4);
  });
});

describe('processor batch report', () => {
  it('gives the lag per aggregate type of the published records only, the oldest of each', () => {
    const now = Date.now();
    const record = (aggregateType: string, agoMs: number): _Record => ({
      dynamodb: { ApproximateCreationDateTime: new Date(now - agoMs), NewImage: { aggregateType: { S: aggregateType } } },
    });
    const reports: BatchReport[] = [];
    const at = (i: number) => ({ sequenceNumber: String(i) });
    reportBatch(
      { batch: (report) => reports.push(report) },
      's1',
      [record('stock', 5_000), record('stock', 2_000), record('invoice', 9_000), record('order', 1_000)],
      {
        outcomes: [
          { status: 'delivered', record: at(1), published: 1, deadLettered: 0 },
          { status: 'delivered', record: at(2), published: 1, deadLettered: 0 },
          // Unrouted: dead-lettered, never published.
          { status: 'delivered', record: at(3), published: 0, deadLettered: 1 },
          { status: 'failed', record: at(4), reason: 'PUBLISH_FAILED', detail: 'x' },
        ],
        published: 2,
        retried: 0,
        deadLettered: 1,
        ignored: 0,
        failed: 1,
      },
    );

    expect(Object.keys(reports[0]!.lagByAggregateType!)).toEqual(['stock']);
    expect(reports[0]!.lagByAggregateType!.stock).toBeGreaterThanOrEqual(5_000);
    expect(reports[0]!.lagByAggregateType!.stock).toBeLessThan(6_000);
  });
});

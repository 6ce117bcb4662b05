import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { ProcessorOptionsError } from '../../shared/processor/errors.js';
import { startHealthServer } from '../../shared/processor/health.js';
import { createLeaseTableInput } from '../../shared/processor/lease-table.js';
import { leaseTableClient } from '../../shared/processor/lease-table-client.js';
import { processorMetrics, processorObserver } from '../../shared/processor/observability.js';
import type { WorkerStatus } from '../../shared/processor/worker-types.js';

/** What `run` threw or rejected with; none fails the test. */
async function refusal(run: () => unknown): Promise<ProcessorOptionsError> {
  let caught: unknown;
  try {
    await run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ProcessorOptionsError);
  return caught as ProcessorOptionsError;
}

const status = (): WorkerStatus => ({
  workerId: 'w',
  state: 'running',
  leases: [],
  leasesInTable: 0,
  lastScanAt: 0,
  recordsProcessed: 0,
  eventsPublished: 0,
});

describe("the processor's helpers refuse what they would misuse, as the options of createProcessor are", () => {
  it('createLeaseTableInput: a table ARN, or a name DynamoDB refuses', async () => {
    const error = await refusal(() => createLeaseTableInput('arn:aws:dynamodb:eu-west-1:123456789012:table/leases'));
    expect(error.field).toBe('tableName');
    expect(error.message).toContain("allowed: the lease table's name (not its ARN)");
    expect(createLeaseTableInput('outbox-leases').TableName).toBe('outbox-leases');
  });

  it('processorMetrics: a blank lease table name, the dimension every metric would carry', async () => {
    expect((await refusal(() => processorMetrics(' '))).message).toContain('leaseTableName: got " "; allowed:');
  });

  it.each([Number.NaN, -1])('processorObserver: a flush interval of %s (with NaN the metrics were never flushed)', async (ms) => {
    const metrics = processorMetrics('orders-leases');
    const error = await refusal(() => processorObserver(new Logger({ logLevel: 'SILENT' }), metrics, ms));
    expect(error.field).toBe('flushIntervalMs');
    expect(error.message).toContain(`got ${ms}; allowed: milliseconds from 0 (flush at every report) up, or leave it out for 10000`);
  });

  it.each([Number.NaN, 5, 400_000])('leaseTableClient: a renewal interval of %s (NaN gave NaN timeouts)', async (ms) => {
    const error = await refusal(() => leaseTableClient(ms));
    expect(error.field).toBe('renewIntervalMs');
    expect(error.message).toContain(`got ${ms}; allowed: a whole number from 10 to 300000`);
  });

  it('startHealthServer: a NaN failover time (every answer 503) or a port out of range, before it listens', async () => {
    const nan = await refusal(() => startHealthServer(status, Number.NaN, 0));
    expect(nan.field).toBe('failoverMs');
    expect(nan.message).toContain('got NaN; allowed: a whole number from 200 to 600000');
    const port = await refusal(() => startHealthServer(status, 10_000, 70_000));
    expect(port.message).toContain(
      'Invalid stream processor option port: got 70000; allowed: a whole number from 0 (a free port) to 65535',
    );
  });

  it('startHealthServer: a status that is no function, which the first request would have thrown on', async () => {
    const error = await refusal(() => startHealthServer('running' as never, 10_000, 0));
    expect(error.message).toContain('option status: got "running"; allowed: a function');
  });

  it.each([
    ['logger', { info() {} }, 'got an object whose debug, warn, error are no functions; allowed: a Powertools Logger'],
    ['metrics', {}, 'got an object whose addMetric, addDimension, publishStoredMetrics are no functions'],
  ])('processorObserver: a %s %j, which the first report would have thrown on', async (field, value, words) => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const metrics = processorMetrics('orders-leases');
    const given = { logger, metrics, [field]: value } as { logger: Logger; metrics: typeof metrics };
    const error = await refusal(() => processorObserver(given.logger, given.metrics));
    expect(error.field).toBe(field);
    expect(error.message).toContain(words);
  });
});
